-- Guidelines current at :now in the caller's scope, most specific scope first per key.
SELECT id, row_id, guideline_key, content, content_json, version, valid_from, valid_until,
       user_id, agent_id, thread_id
FROM guideline_memory
WHERE (:key IS NULL OR guideline_key = :key)
  AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now) AND deleted_at IS NULL
ORDER BY guideline_key,
         (user_id IS NOT NULL) + (agent_id IS NOT NULL) + (thread_id IS NOT NULL) DESC,
         version DESC
