-- How many of the caller's chunks there are, within one document when :document is set (SQLite
-- counts the whole index with kb_index_chunks and runs this only for a document left out of a search).
SELECT count(*) AS chunks
FROM knowledge_base_chunk
WHERE (:document IS NULL OR document_id = :document)
