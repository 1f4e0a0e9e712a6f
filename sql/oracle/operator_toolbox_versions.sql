-- Operator only (`memgate tools list`): every version of a tenant's toolbox rows. SQLite orders by
-- ifnull(user_id, ''), so '' (no scope) first: NULLS FIRST here.
SELECT id, tool_name, tool_schema, usage_notes, tool_handler, access_policy, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id
FROM toolbox_memory
WHERE tenant_id = :tenant AND (:name IS NULL OR tool_name = :name)
ORDER BY tool_name, user_id NULLS FIRST, agent_id NULLS FIRST, thread_id NULLS FIRST, version DESC
