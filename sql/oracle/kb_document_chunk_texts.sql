-- fetch: the text of a document stored without its full text is its chunks in order, joined by a
-- blank line (manager/kb/sources.py read_item). VPD decides which chunks the caller sees. content is
-- a CLOB, which the app connection fetches as text (fetch_types.py).
SELECT content FROM knowledge_base_chunk
WHERE document_id = :id AND deleted_at IS NULL
ORDER BY position
