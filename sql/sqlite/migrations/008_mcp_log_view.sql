-- The call log in the shape of SQLcl's DBTOOLS$MCP_LOG, and the two columns it needs.
--
-- mcp_client: the host's clientInfo name and version ("claude-ai 0.1.0"); model: the model the
-- host says it runs, when it says one. Both are what the client says of itself: recorded, never
-- trusted for access.
--
-- dbtools_mcp_log has SQLcl's columns first (ID, MCP_CLIENT, MODEL, END_POINT_TYPE,
-- END_POINT_NAME, LOG_MESSAGE, CREATED_ON, CREATED_BY: SQLcl User's Guide, Monitoring the SQLcl
-- MCP Server), then memgate's own, so a query written for SQLcl's log reads memgate's unchanged
-- (sql/oracle/install/060_log_view.sql is the same view on Oracle). It reads the base table, for
-- the operator: `sqlite3 memgate.db "SELECT * FROM dbtools_mcp_log"` needs no memgate function.
-- It is not a source the tenant wall trusts (catalog_schema_objects.sql leaves it out), so a
-- walled connection cannot read it, and execute_query does not list it.
ALTER TABLE base_mcp_call_log ADD COLUMN mcp_client TEXT;
ALTER TABLE base_mcp_call_log ADD COLUMN model TEXT;

CREATE VIEW dbtools_mcp_log AS
SELECT call_id AS id,
       mcp_client,
       model,
       'tool' AS end_point_type,
       tool_name AS end_point_name,
       arguments_json AS log_message,
       called_at AS created_on,
       principal AS created_by,
       tenant_id, user_id, agent_id, thread_id, status, error_class, duration_ms,
       rows_returned, truncated, result_tokens, transport, session_id
FROM base_mcp_call_log;
