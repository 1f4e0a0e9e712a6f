-- The newest version of one claim in exactly one scope (NULL scope columns match NULL).
-- SQLite's "user_id IS :user_id" is written out: equal, or both NULL.
SELECT id, subject, predicate, content, content_json, confidence, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id
FROM entity_memory
WHERE subject = :subject AND predicate = :predicate
  AND (user_id = :user_id OR (user_id IS NULL AND :user_id IS NULL))
  AND (agent_id = :agent_id OR (agent_id IS NULL AND :agent_id IS NULL))
  AND (thread_id = :thread_id OR (thread_id IS NULL AND :thread_id IS NULL))
ORDER BY version DESC
FETCH FIRST 1 ROW ONLY
