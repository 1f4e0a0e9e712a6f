-- Personas current at :now in the caller's scope, most specific scope first per key.
SELECT id, persona_key, name, content, version, valid_from, valid_until,
       user_id, agent_id, thread_id
FROM persona_memory
WHERE (:key IS NULL OR persona_key = :key)
  AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now) AND deleted_at IS NULL
ORDER BY persona_key,
         (user_id IS NOT NULL) + (agent_id IS NOT NULL) + (thread_id IS NOT NULL) DESC,
         version DESC
