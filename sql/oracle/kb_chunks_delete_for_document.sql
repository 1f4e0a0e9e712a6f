-- A changed document's chunks are replaced: delete the old ones.
DELETE FROM knowledge_base_chunk WHERE document_id = :document_id
