-- Lexical candidates (issue 6): Oracle Text over the caller's rows, best first, at most :limit.
-- VPD adds the tenant/scope predicate to this statement, and the CONTEXT index filters by
-- tenant_id and collection inside the index (FILTER BY, install/023), so ranking and the row
-- limit only ever see rows the caller may see.
-- :expr is an Oracle Text query, not an FTS5 one: the backend builds it from the query words,
-- each in braces and joined with ACCUM (see /work/notes/oracle.md, CONTAINS).
-- bm25 keeps SQLite's meaning "smaller is better": it is minus Oracle Text's SCORE (0..100,
-- larger is better). It is not a BM25 value.
-- A bind as the row count is supported: "rowcount must be a number or an expression that
-- evaluates to a numeric value" (SQL Language Reference, SELECT, row_limiting_clause).
SELECT c.seq, -SCORE(1) AS bm25
FROM knowledge_base_chunk c
WHERE CONTAINS(c.content, :expr, 1) > 0
  AND (:collection IS NULL OR c.collection = :collection)
  AND (:document IS NULL OR c.document_id = :document)
  AND c.deleted_at IS NULL AND c.valid_from <= :now AND (c.valid_until IS NULL OR c.valid_until > :now)
  AND (c.user_id IS NULL OR c.user_id = :"USER")
  AND (c.agent_id IS NULL OR c.agent_id = :agent)
  AND (c.thread_id IS NULL OR c.thread_id = :thread)
ORDER BY bm25, c.seq
FETCH FIRST :limit ROWS ONLY
