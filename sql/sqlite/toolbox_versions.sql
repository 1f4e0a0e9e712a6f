-- Every version of the toolbox rows in the caller's scope (enable/disable reads the tenant-wide ones).
SELECT id, tool_name, tool_schema, usage_notes, tool_handler, access_policy, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id
FROM toolbox_memory
WHERE (:name IS NULL OR tool_name = :name)
ORDER BY tool_name, ifnull(user_id, ''), ifnull(agent_id, ''), ifnull(thread_id, ''), version DESC
