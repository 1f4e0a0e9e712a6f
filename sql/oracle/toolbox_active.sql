-- The caller's active toolbox rows at :now, most specific scope first, then newest.
SELECT id, tool_name, tool_schema, usage_notes, tool_handler, access_policy, version,
       valid_from, valid_until, user_id, agent_id, thread_id
FROM toolbox_memory
WHERE (:name IS NULL OR tool_name = :name)
  AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now) AND deleted_at IS NULL
ORDER BY tool_name,
         NVL2(user_id, 1, 0) + NVL2(agent_id, 1, 0) + NVL2(thread_id, 1, 0) DESC,
         version DESC
