-- 060_log_view.sql: dbtools_mcp_log, the call log in the shape of SQLcl's DBTOOLS$MCP_LOG.
-- Run by: MEMGATE_OWNER. Re-runnable (CREATE OR REPLACE VIEW).
--
-- SQLcl's MCP server "automatically records the execution history of every request in the
-- DBTOOLS$MCP_LOG table" and documents reading it as
--   SELECT ID, MCP_CLIENT, MODEL, END_POINT_TYPE, END_POINT_NAME, LOG_MESSAGE FROM DBTOOLS$MCP_LOG
-- (SQLcl User's Guide 25.2, 3.7 Monitoring the SQLcl MCP Server; example rows: Claude /
-- claude-sonnet-4 / tool / run-sql / the SQL text). Oracle's LiveLabs MCP workshop also selects
-- CREATED_ON and CREATED_BY from it ("a record of each MCP action with timestamps and user IDs").
-- The full column list and types of DBTOOLS$MCP_LOG are NOT published in the docs corpus; this
-- view reproduces the six documented columns plus those two, so tools and queries written for
-- SQLcl's log read memgate's log unchanged, and appends memgate's own columns after them.
--
-- Read by the operator as the owner (VPD lets the owner through when no tenant is bound, 040);
-- granted to nobody. Under a bound tenant it shows that tenant's calls only.
-- log_message takes at most 800 characters of the arguments: with up to 4 bytes a character it
-- stays inside the 4,000-byte VARCHAR2 limit of SQL, whatever MAX_STRING_SIZE is.
CREATE OR REPLACE VIEW dbtools_mcp_log AS
SELECT l.call_id                                   AS id,
       l.mcp_client                                AS mcp_client,
       l.model                                     AS model,
       'tool'                                      AS end_point_type,
       l.tool_name                                 AS end_point_name,
       l.status || ' ' || l.tool_name
         || NVL2(l.error_class, ' ' || l.error_class, NULL)
         || ' ' || DBMS_LOB.SUBSTR(l.arguments_json, 800, 1) AS log_message,
       FROM_TZ(TO_TIMESTAMP(l.called_at, 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"'), 'UTC') AS created_on,
       l.principal                                 AS created_by,
       l.tenant_id, l.user_id, l.agent_id, l.thread_id, l.client_name, l.client_version,
       l.session_id, l.transport, l.handler, l.toolbox_row_id, l.toolbox_row_version,
       l.status, l.error_class, l.rows_returned, l.truncated, l.result_tokens, l.duration_ms
FROM mcp_call_log l
/
