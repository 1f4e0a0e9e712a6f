-- Lexical candidates: BM25 over the caller's chunks, best first (bm25 is smaller for
-- better matches). kb_chunk_match is the bound tenant's own FTS5 index (so BM25's statistics
-- are the tenant's alone), joined to each match's chunk with the caller's scope checked inside
-- the view; every metadata filter is here, so only rows the caller may see are ranked. FTS5
-- returns the matches in bm25 order, and the backend reads only as many as it needs (the limit,
-- and any rows tied with the last), then orders ties by seq: no LIMIT here, so a read that stops
-- early looks up no more chunks than it reads.
SELECT m.seq, m.bm25
FROM kb_chunk_match m
WHERE m.fts MATCH :expr
  AND (:collection IS NULL OR m.collection = :collection)
  AND (:document IS NULL OR m.document_id = :document)
  AND m.deleted_at IS NULL AND m.valid_from <= :now
  AND (m.valid_until IS NULL OR m.valid_until > :now OR :ended = 1)
ORDER BY m.bm25
