-- 060_log_view.sql: dbtools_mcp_log, the call log in the shape of SQLcl's DBTOOLS$MCP_LOG.
-- Run by: MEMGATE_OWNER. Re-runnable (CREATE OR REPLACE VIEW). The SQLite twin is
-- sql/sqlite/migrations/008_mcp_log_view.sql; both have the same columns.
--
-- SQLcl's MCP server "automatically records the execution history of every request in the
-- DBTOOLS$MCP_LOG table" and reads it as
--   SELECT ID, MCP_CLIENT, MODEL, END_POINT_TYPE, END_POINT_NAME, LOG_MESSAGE FROM DBTOOLS$MCP_LOG
-- (SQLcl User's Guide 25.2, 3.7 Monitoring the SQLcl MCP Server; example rows: Claude /
-- claude-sonnet-4 / tool / run-sql / the SQL it ran). Oracle's LiveLabs MCP workshop also selects
-- CREATED_ON and CREATED_BY from it. The full column list and types of DBTOOLS$MCP_LOG are not
-- published in the docs corpus, so this view has those eight columns, in that order, and then
-- memgate's own: a query written for SQLcl's log reads memgate's unchanged.
-- log_message is the call's arguments (clipped by the manager), as SQLcl's is the request.
--
-- Read by the operator as the owner (VPD gives the owner every tenant, 040); granted to nobody,
-- and for any other account VPD cuts it to the caller's own calls.
CREATE OR REPLACE VIEW dbtools_mcp_log AS
SELECT l.call_id AS id,
       l.mcp_client,
       l.model,
       'tool' AS end_point_type,
       l.tool_name AS end_point_name,
       l.arguments_json AS log_message,
       l.called_at AS created_on,
       l.principal AS created_by,
       l.tenant_id, l.user_id, l.agent_id, l.thread_id, l.status, l.error_class, l.duration_ms,
       l.rows_returned, l.truncated, l.result_tokens, l.transport, l.session_id
FROM mcp_call_log l
/
