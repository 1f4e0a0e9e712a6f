-- How many of the caller's chunks match one term (:expr, the lexical leg's braced word,
-- manager/backend/oracle/kb.py: term_expression), within one document when :document is set.
-- The count Oracle Text's documentation gives for "the number of documents that contain the word":
-- COUNT(*) with CONTAINS (Text Application Developer's Guide, Counting Hits). VPD adds the tenant
-- and scope predicate, so the count is the caller's chunks alone.
SELECT COUNT(*) AS chunks
FROM knowledge_base_chunk c
WHERE CONTAINS(c.content, :expr) > 0
  AND (:document IS NULL OR c.document_id = :document)
