-- Every version of the caller's toolbox rows. SQLite orders by ifnull(user_id, ''), so '' (no
-- scope) first: NULLS FIRST here (Oracle sorts NULLs last in ascending order by default).
SELECT id, tool_name, tool_schema, usage_notes, tool_handler, access_policy, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id
FROM toolbox_memory
WHERE (:name IS NULL OR tool_name = :name)
ORDER BY tool_name, user_id NULLS FIRST, agent_id NULLS FIRST, thread_id NULLS FIRST, version DESC
