-- The caller's visible recent tool calls, newest first. Run by: MEMGATE_APP under a bound identity.
-- VPD scopes mcp_call_log like memory (040): a user sees the calls of its own scope and the
-- unscoped ones; tenant-wide reads go through operator_calllog_recent.
SELECT call_id, called_at, principal, user_id, agent_id, client_name, client_version, transport,
       tool_name, handler, toolbox_row_id, toolbox_row_version, status, error_class,
       rows_returned, truncated, result_tokens, duration_ms, arguments_json, result_text, cited_ids
FROM mcp_call_log
WHERE (:tool IS NULL OR tool_name = :tool)
  AND (:status IS NULL OR status = :status)
ORDER BY called_at DESC, call_id DESC
