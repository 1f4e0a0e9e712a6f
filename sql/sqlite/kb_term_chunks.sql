-- How many of the caller's chunks match one term (:expr, the lexical leg's quoting of a word),
-- within one document when :document is set. SQLite reads a word's count over the whole index from
-- its vocabulary (kb_term_vocab) and runs this only within a document left out of a search.
SELECT count(*) AS chunks
FROM kb_chunk_match m
WHERE m.fts MATCH :expr
  AND (:document IS NULL OR m.document_id = :document)
