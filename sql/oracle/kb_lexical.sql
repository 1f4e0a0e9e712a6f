-- The lexical leg: Oracle Text over the caller's chunks, best first, at most :limit.
-- VPD adds the tenant and scope predicate to this statement and the CONTEXT index filters by
-- tenant_id inside the index (install/023; collection is filtered outside it), so ranking and the
-- row limit only ever see rows the caller may see. :expr is an Oracle Text query the backend builds from the query's
-- words, each in braces (manager/backend/oracle/kb.py): no word is query syntax. SCORE(1) is
-- larger for better matches (0 to 100).
SELECT c.seq, SCORE(1) AS score
FROM knowledge_base_chunk c
WHERE CONTAINS(c.content, :expr, 1) > 0
  AND (:collection IS NULL OR c.collection = :collection)
  AND (:document IS NULL OR c.document_id = :document)
  AND c.deleted_at IS NULL AND c.valid_from <= :now
  AND (c.valid_until IS NULL OR c.valid_until > :now OR :ended = 1)
ORDER BY score DESC, c.seq
FETCH FIRST :limit ROWS ONLY
