-- Toolbox rows active at :now for the caller's scope, most specific scope first per tool.
SELECT id, tool_name, tool_schema, usage_notes, tool_handler, access_policy, version,
       valid_from, valid_until, user_id, agent_id, thread_id
FROM toolbox_memory
WHERE (:name IS NULL OR tool_name = :name)
  AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now) AND deleted_at IS NULL
ORDER BY tool_name,
         (user_id IS NOT NULL) + (agent_id IS NOT NULL) + (thread_id IS NOT NULL) DESC,
         version DESC
