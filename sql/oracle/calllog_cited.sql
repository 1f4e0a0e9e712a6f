-- expand: whether a result the caller received cited :needle (a memory id as a JSON string, with
-- its quotes, so one id is never found inside another). VPD cuts mcp_call_log to the caller's
-- user, agent and thread: another caller's results issued nothing to this one.
SELECT call_id FROM mcp_call_log
WHERE status = 'ok' AND DBMS_LOB.INSTR(cited_ids, :needle) > 0
FETCH FIRST 1 ROW ONLY
