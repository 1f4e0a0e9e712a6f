-- Import from another tool: a source document's chunks, with where each lies in its text, so a
-- proposal's evidence is the chunks holding the lines it rests on.
SELECT id, position, char_start, char_end
FROM knowledge_base_chunk
WHERE document_id = :document AND deleted_at IS NULL
ORDER BY position
