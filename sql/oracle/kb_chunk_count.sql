-- How many of the caller's chunks there are (VPD adds the tenant and scope predicate), within one
-- document when :document is set.
SELECT COUNT(*) AS chunks
FROM knowledge_base_chunk c
WHERE (:document IS NULL OR c.document_id = :document)
