-- Operator-only: every version of one tenant's toolbox rows of every scope (`memgate tools list`;
-- base table, on an unwalled connection).
SELECT id, tool_name, tool_schema, usage_notes, tool_handler, access_policy, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id
FROM base_toolbox_memory
WHERE tenant_id = :tenant AND (:name IS NULL OR tool_name = :name)
ORDER BY tool_name, ifnull(user_id, ''), ifnull(agent_id, ''), ifnull(thread_id, ''), version DESC
