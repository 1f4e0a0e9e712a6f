-- Every version of a subject's claims visible in the caller's scope, most specific scope first.
SELECT id, subject, predicate, content, content_json, confidence, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version, created_by, created_at
FROM entity_memory
WHERE subject = :subject
  AND (:predicate IS NULL OR predicate = :predicate)
  AND (user_id IS NULL OR user_id = :user)
  AND (agent_id IS NULL OR agent_id = :agent)
  AND (thread_id IS NULL OR thread_id = :thread)
ORDER BY predicate,
         (user_id IS NOT NULL) + (agent_id IS NOT NULL) + (thread_id IS NOT NULL) DESC,
         version DESC
