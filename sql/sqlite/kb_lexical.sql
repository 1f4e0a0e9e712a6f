-- Lexical candidates: BM25 over the caller's chunks, best first (bm25 is smaller for
-- better matches). kb_chunk_match keeps only the tenant's rows in the caller's scope inside
-- the view, and every metadata filter is here, so ORDER BY/LIMIT rank only rows the caller
-- may see.
SELECT m.seq, m.bm25
FROM kb_chunk_match m
JOIN knowledge_base_chunk c ON c.seq = m.seq
WHERE m.fts MATCH :expr
  AND (:collection IS NULL OR c.collection = :collection)
  AND (:document IS NULL OR c.document_id = :document)
  AND c.deleted_at IS NULL AND c.valid_from <= :now
  AND (c.valid_until IS NULL OR c.valid_until > :now OR :ended = 1)
ORDER BY m.bm25, m.seq
LIMIT :limit
