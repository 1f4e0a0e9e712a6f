-- Every version of a subject's claims visible in the caller's scope, most specific scope first.
-- :"USER" is the bind the manager passes as user=...: USER is an Oracle reserved word, and an
-- unquoted :user fails with ORA-01745; python-oracledb upper-cases the key and matches it to the
-- quoted name (see /work/notes/oracle.md, bind names).
SELECT id, subject, predicate, content, content_json, confidence, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version, created_by, created_at
FROM entity_memory
WHERE subject = :subject
  AND (:predicate IS NULL OR predicate = :predicate)
  AND (user_id IS NULL OR user_id = :"USER")
  AND (agent_id IS NULL OR agent_id = :agent)
  AND (thread_id IS NULL OR thread_id = :thread)
ORDER BY predicate,
         CASE WHEN user_id IS NOT NULL THEN 1 ELSE 0 END
           + CASE WHEN agent_id IS NOT NULL THEN 1 ELSE 0 END
           + CASE WHEN thread_id IS NOT NULL THEN 1 ELSE 0 END DESC,
         version DESC
