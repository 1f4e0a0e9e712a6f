-- 022_triggers.sql: claim versions are immutable; the call log is append-only.
-- Run by: MEMGATE_OWNER. Re-runnable (CREATE OR REPLACE).
--
-- SQLite compares OLD and NEW values. Here the test is UPDATING('column'), true when the UPDATE
-- names the column at all (DBMS_STANDARD: FUNCTION UPDATING (COLNAM VARCHAR2) RETURN BOOLEAN, as
-- listed in O'Reilly's Oracle PL/SQL Best Practices, MOD-17):
-- stricter, the same for memgate, whose only UPDATE of entity_memory is entity_close_version
-- (SET valid_until). It is used because content_json is JSON and "UPDATE OF" refuses LOB-like
-- columns ("ORA-25006: cannot specify this column in UPDATE OF clause ... such as LOB"), and
-- comparing :OLD/:NEW of JSON or LOB values in a trigger body is not something to rely on.
-- The list also covers tenant_id and the scope columns: a claim version never changes scope.
-- The backend maps ORA-20001 / ORA-20002 to AccessDenied, as the SQLite backend maps the
-- "immutable" / "append-only" messages.
CREATE OR REPLACE TRIGGER entity_memory_immutable
  BEFORE UPDATE ON entity_memory
  FOR EACH ROW
BEGIN
  IF UPDATING('ID') OR UPDATING('TENANT_ID') OR UPDATING('USER_ID') OR UPDATING('AGENT_ID')
     OR UPDATING('THREAD_ID') OR UPDATING('SUBJECT') OR UPDATING('PREDICATE')
     OR UPDATING('CONTENT') OR UPDATING('CONTENT_JSON') OR UPDATING('VERSION')
     OR UPDATING('VALID_FROM') OR UPDATING('CREATED_AT') THEN
    RAISE_APPLICATION_ERROR(-20001,
      'memgate: a claim version is immutable; insert the next version instead');
  END IF;
END;
/
-- The call log is append-only. (memgate_app has no DELETE on it either, 045; pruning old rows is
-- an operator job run as the owner.)
CREATE OR REPLACE TRIGGER mcp_call_log_append_only
  BEFORE UPDATE ON mcp_call_log
  FOR EACH ROW
BEGIN
  RAISE_APPLICATION_ERROR(-20002, 'memgate: mcp_call_log is append-only');
END;
/
