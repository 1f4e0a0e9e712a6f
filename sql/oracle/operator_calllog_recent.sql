-- Operator only (`memgate log`): calls across tenants, or one tenant's, newest first. Runs as the
-- schema owner, whose VPD predicate is empty (install/040).
SELECT call_id, tenant_id, called_at, principal, user_id, agent_id, client_name, client_version,
       transport, tool_name, handler, toolbox_row_id, toolbox_row_version, status, error_class,
       rows_returned, truncated, result_tokens, duration_ms, arguments_json, result_text, cited_ids
FROM mcp_call_log
WHERE (:tenant IS NULL OR tenant_id = :tenant)
  AND (:tool IS NULL OR tool_name = :tool)
  AND (:status IS NULL OR status = :status)
ORDER BY called_at DESC, call_id DESC
