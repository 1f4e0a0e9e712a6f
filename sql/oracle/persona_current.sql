-- Personas current at :now, most specific scope first, then newest.
SELECT id, persona_key, name, content, version, valid_from, valid_until,
       user_id, agent_id, thread_id
FROM persona_memory
WHERE (:key IS NULL OR persona_key = :key)
  AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now) AND deleted_at IS NULL
ORDER BY persona_key,
         NVL2(user_id, 1, 0) + NVL2(agent_id, 1, 0) + NVL2(thread_id, 1, 0) DESC,
         version DESC
