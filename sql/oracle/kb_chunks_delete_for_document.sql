-- Drop a document's chunks. Oracle Text removes them from the lexical index itself (deletes are
-- immediate for a CONTEXT index); no trigger is needed.
DELETE FROM knowledge_base_chunk WHERE document_id = :document_id
