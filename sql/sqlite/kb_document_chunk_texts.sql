-- fetch: the text of a document stored without its full text is its chunks in order, joined by a
-- blank line (manager/kb/sources.py read_item). The wall decides which chunks the caller sees.
SELECT content FROM knowledge_base_chunk
WHERE document_id = :id AND deleted_at IS NULL
ORDER BY position
