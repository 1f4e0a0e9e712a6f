-- Every version of a subject's claims in the caller's scope (the wall's), most specific scope
-- first, newest first; id breaks ties, as in the reviewed entity_memory_history view.
SELECT id, subject, predicate, content, content_json, confidence, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version, created_by, created_at
FROM entity_memory
WHERE subject = :subject
  AND (:predicate IS NULL OR predicate = :predicate)
ORDER BY predicate,
         (user_id IS NOT NULL) + (agent_id IS NOT NULL) + (thread_id IS NOT NULL) DESC,
         version DESC, id
