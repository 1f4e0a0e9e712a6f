-- Every version of a subject's claims the caller may see, most specific scope first, newest first.
SELECT id, subject, predicate, content, content_json, confidence, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version, created_by, created_at
FROM entity_memory
WHERE subject = :subject
  AND (:predicate IS NULL OR predicate = :predicate)
ORDER BY predicate,
         NVL2(user_id, 1, 0) + NVL2(agent_id, 1, 0) + NVL2(thread_id, 1, 0) DESC,
         version DESC, id
