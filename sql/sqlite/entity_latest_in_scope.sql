-- The newest version of one claim in exactly one scope (NULL scope columns match NULL).
SELECT id, subject, predicate, content, content_json, confidence, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id
FROM entity_memory
WHERE subject = :subject AND predicate = :predicate
  AND user_id IS :user_id AND agent_id IS :agent_id AND thread_id IS :thread_id
ORDER BY version DESC
LIMIT 1
