-- Guidelines current at :now, most specific scope first, then newest.
SELECT id, row_id, guideline_key, content, content_json, version, valid_from, valid_until,
       user_id, agent_id, thread_id
FROM guideline_memory
WHERE (:key IS NULL OR guideline_key = :key)
  AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now) AND deleted_at IS NULL
ORDER BY guideline_key,
         NVL2(user_id, 1, 0) + NVL2(agent_id, 1, 0) + NVL2(thread_id, 1, 0) DESC,
         version DESC
