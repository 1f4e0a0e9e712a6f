-- Drop a document's chunks (their lexical index rows go with them, by trigger).
DELETE FROM knowledge_base_chunk WHERE document_id = :document_id
