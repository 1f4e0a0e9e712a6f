-- Every version of the tenant's toolbox rows (admin view: `memgate tools list`).
-- SQLite orders by ifnull(user_id, '') ...: '' sorts first, so NULLS FIRST here (Oracle puts
-- NULLs last in ascending order by default, and NVL(x, '') would be NULL anyway).
SELECT id, tool_name, tool_schema, usage_notes, tool_handler, access_policy, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id
FROM toolbox_memory
WHERE (:name IS NULL OR tool_name = :name)
ORDER BY tool_name, user_id NULLS FIRST, agent_id NULLS FIRST, thread_id NULLS FIRST, version DESC
