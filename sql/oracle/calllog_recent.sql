-- The caller's own calls, newest first (`recent_calls`): VPD cuts mcp_call_log to the caller's
-- tenant, user, agent and thread, as SQLite's walled view does.
SELECT call_id, called_at, principal, user_id, agent_id, client_name, client_version, transport,
       tool_name, handler, toolbox_row_id, toolbox_row_version, status, error_class,
       rows_returned, truncated, result_tokens, duration_ms, arguments_json, result_text, cited_ids
FROM mcp_call_log
WHERE (:tool IS NULL OR tool_name = :tool)
  AND (:status IS NULL OR status = :status)
ORDER BY called_at DESC, call_id DESC
