-- Personas current at :now in the caller's scope, most specific scope first per key.
-- (:"USER": see entity_versions.sql.)
SELECT id, persona_key, name, content, version, valid_from, valid_until,
       user_id, agent_id, thread_id
FROM persona_memory
WHERE (:key IS NULL OR persona_key = :key)
  AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now) AND deleted_at IS NULL
  AND (user_id IS NULL OR user_id = :"USER")
  AND (agent_id IS NULL OR agent_id = :agent)
  AND (thread_id IS NULL OR thread_id = :thread)
ORDER BY persona_key,
         CASE WHEN user_id IS NOT NULL THEN 1 ELSE 0 END
           + CASE WHEN agent_id IS NOT NULL THEN 1 ELSE 0 END
           + CASE WHEN thread_id IS NOT NULL THEN 1 ELSE 0 END DESC,
         version DESC
