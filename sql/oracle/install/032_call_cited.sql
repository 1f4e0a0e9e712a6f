-- 032_call_cited.sql: the ids an ok tool result cited, one a row (SQLite migration 029): the table,
-- its indexes, its guard and append-only triggers, and the rows of the calls already logged.
-- Run by: MEMGATE_OWNER. Re-runnable: CREATE TABLE IF NOT EXISTS, indexes made when missing, the
-- triggers CREATE OR REPLACE, the backfill touching only calls that have no row yet.
--
-- "Was record X issued to this caller?" (calllog_cited.sql: the promotion gate's evidence rule,
-- expand of an image id) searched cited_ids of every ok call VPD let the caller see, so its cost
-- grew with the call log. mcp_call_cited holds each id an ok call cited with the call's tenant,
-- user, agent and thread, written in the call-log row's transaction (manager/registry/calllog.py):
-- its VPD predicate (040) is mcp_call_log's, and the lookup is one range of mcp_call_cited_ix. It
-- is append-only as the call log is (memgate_app may SELECT and INSERT, 045); `memgate forget`
-- deletes the subject's rows and `memgate expire` those whose call went, as the owner
-- (manager/retention/registry.py). id is the call's id and the cited id's place in cited_ids
-- ("call_...:0"), as SQLite's backfill makes it.
CREATE TABLE IF NOT EXISTS mcp_call_cited (
    id VARCHAR2(96) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    call_id VARCHAR2(64) NOT NULL,
    cited_id VARCHAR2(256) NOT NULL
)
/
CREATE INDEX IF NOT EXISTS mcp_call_cited_ix ON mcp_call_cited (tenant_id, cited_id)
/
CREATE INDEX IF NOT EXISTS mcp_call_cited_call_ix ON mcp_call_cited (tenant_id, call_id)
/
CREATE OR REPLACE TRIGGER mcp_call_cited_guard
  BEFORE INSERT OR UPDATE OR DELETE ON mcp_call_cited
  FOR EACH ROW
BEGIN
  IF INSERTING AND :NEW.tenant_id IS NULL THEN
    :NEW.tenant_id := memgate_guard_pkg.bound_tenant;
  END IF;
  IF INSERTING OR UPDATING THEN
    memgate_guard_pkg.check_row(:NEW.tenant_id, :NEW.user_id, :NEW.agent_id, :NEW.thread_id);
  END IF;
  IF UPDATING OR DELETING THEN
    memgate_guard_pkg.check_row(:OLD.tenant_id, :OLD.user_id, :OLD.agent_id, :OLD.thread_id);
  END IF;
END;
/
CREATE OR REPLACE TRIGGER mcp_call_cited_append_only
  BEFORE UPDATE ON mcp_call_cited
  FOR EACH ROW
BEGIN
  RAISE_APPLICATION_ERROR(-20002, 'memgate: mcp_call_cited is append-only');
END;
/
-- The calls already logged: each ok call's cited ids, for the calls that have no row yet (so a second
-- run adds nothing). The owner runs it with no identity bound: VPD shows it every row and the guards
-- (022) let the operator path through.
INSERT INTO mcp_call_cited (id, tenant_id, user_id, agent_id, thread_id, call_id, cited_id)
SELECT l.call_id || ':' || (j.n - 1), l.tenant_id, l.user_id, l.agent_id, l.thread_id, l.call_id, j.cited_id
FROM mcp_call_log l,
     JSON_TABLE(l.cited_ids, '$[*]' COLUMNS (n FOR ORDINALITY, cited_id VARCHAR2(256) PATH '$')) j
WHERE l.status = 'ok' AND j.cited_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM mcp_call_cited c WHERE c.tenant_id = l.tenant_id AND c.call_id = l.call_id)
/
COMMIT
/
