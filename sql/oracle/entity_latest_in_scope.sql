-- The newest version of a claim in exactly this scope (NULL-safe: DECODE treats two NULLs as equal).
SELECT id, subject, predicate, content, content_json, confidence, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id
FROM entity_memory
WHERE subject = :subject AND predicate = :predicate
  AND DECODE(user_id, :user_id, 1, 0) = 1
  AND DECODE(agent_id, :agent_id, 1, 0) = 1
  AND DECODE(thread_id, :thread_id, 1, 0) = 1
ORDER BY version DESC
FETCH FIRST 1 ROW ONLY
