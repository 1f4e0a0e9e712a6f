"""The knowledge base: parse, chunk, embed, ingest, and hybrid search with rank fusion.

Owns: turning files into text (parse.py), token-bounded chunks (chunk.py), embedders
(embed.py), idempotent ingest (ingest.py), ranking and fusion (search.py, fusion.py) and
how results are shown (render.py), ChatGPT's search and fetch shapes and a chunk or
document by id (sources.py), citation links (links.py), images: their header (image_header.py),
bytes and searchable description (images.py) and how a result shows them (image_view.py). The lexical and vector legs
themselves are the backend's (Session.kb_lexical, Session.kb_vector).
May import: the shared leaves, backend.base, output.
"""
