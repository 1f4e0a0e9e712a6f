-- 022_triggers.sql: the write guards (tenant and scope), claim immutability, the append-only log.
-- Run by: MEMGATE_OWNER. Re-runnable (CREATE OR REPLACE).
--
-- The guards are SQLite's tenant_guard.sql triggers on Oracle: before a row is written, the row
-- (the new one on INSERT and UPDATE, the old one on UPDATE and DELETE) must belong to the bound
-- tenant and name no other user, agent or thread than the bound ones (NULL: shared at that level).
-- They raise the same two refusals as SQLite (ORA-20003 tenant, ORA-20004 scope), which the
-- backend maps to AccessDenied with SQLite's messages. VPD's update_check (040) would refuse the
-- same writes, but with one error (ORA-28115) for both; the guards say which wall a write hit.
-- An INSERT that names no tenant_id writes for the bound tenant, as SQLite's view triggers do.
-- The schema owner with no identity bound (the operator path) is let through, as VPD lets it read.
-- memory_file has no scope columns: a file may be written only into a store the caller can see
-- (its store's row must be visible under VPD), as on SQLite.
CREATE OR REPLACE PACKAGE memgate_guard_pkg AUTHID DEFINER AS
  -- Refuses (ORA-20003/20004) a row outside the bound tenant and scope.
  PROCEDURE check_row(p_tenant IN VARCHAR2, p_user IN VARCHAR2, p_agent IN VARCHAR2, p_thread IN VARCHAR2);
  -- Refuses a memory_file row whose store the caller cannot see.
  PROCEDURE check_file(p_tenant IN VARCHAR2, p_store IN VARCHAR2);
  -- The bound tenant, for an INSERT that names none.
  FUNCTION bound_tenant RETURN VARCHAR2;
END memgate_guard_pkg;
/
CREATE OR REPLACE PACKAGE BODY memgate_guard_pkg AS
  FUNCTION operator_path RETURN BOOLEAN IS
  BEGIN
    RETURN SYS_CONTEXT('MEMGATE_CTX', 'TENANT') IS NULL
       AND SYS_CONTEXT('USERENV', 'SESSION_USER') = 'MEMGATE_OWNER';
  END operator_path;

  FUNCTION bound_tenant RETURN VARCHAR2 IS
  BEGIN
    RETURN SYS_CONTEXT('MEMGATE_CTX', 'TENANT');
  END bound_tenant;

  PROCEDURE check_tenant(p_tenant IN VARCHAR2) IS
  BEGIN
    IF p_tenant IS NULL OR SYS_CONTEXT('MEMGATE_CTX', 'TENANT') IS NULL
       OR p_tenant <> SYS_CONTEXT('MEMGATE_CTX', 'TENANT') THEN
      RAISE_APPLICATION_ERROR(-20003, 'memgate: write refused, tenant_id differs from the bound tenant');
    END IF;
  END check_tenant;

  PROCEDURE refuse_scope IS
  BEGIN
    RAISE_APPLICATION_ERROR(-20004,
      'memgate: write refused, the row is scoped to another user, agent or thread');
  END refuse_scope;

  -- TRUE when a row's scope column names someone other than the bound id. A NULL column is shared
  -- at that level and never differs; a set column must equal the bound id, so with no id bound
  -- (NULL) it always differs. Written as plain comparisons with the NULLs handled first: DECODE,
  -- which compares NULLs as equal, is a SQL function only and does not compile in a PL/SQL
  -- expression (PLS-00204; PL/SQL Language Reference, "SQL Functions in PL/SQL Expressions").
  FUNCTION differs(p_value IN VARCHAR2, p_bound IN VARCHAR2) RETURN BOOLEAN IS
  BEGIN
    IF p_value IS NULL THEN
      RETURN FALSE;
    END IF;
    RETURN p_bound IS NULL OR p_value <> p_bound;
  END differs;

  PROCEDURE check_row(p_tenant IN VARCHAR2, p_user IN VARCHAR2, p_agent IN VARCHAR2, p_thread IN VARCHAR2) IS
  BEGIN
    IF operator_path THEN
      RETURN;
    END IF;
    check_tenant(p_tenant);
    IF differs(p_user, SYS_CONTEXT('MEMGATE_CTX', 'USER_ID'))
       OR differs(p_agent, SYS_CONTEXT('MEMGATE_CTX', 'AGENT_ID'))
       OR differs(p_thread, SYS_CONTEXT('MEMGATE_CTX', 'THREAD_ID')) THEN
      refuse_scope;
    END IF;
  END check_row;

  PROCEDURE check_file(p_tenant IN VARCHAR2, p_store IN VARCHAR2) IS
    n PLS_INTEGER;
  BEGIN
    IF operator_path THEN
      RETURN;
    END IF;
    check_tenant(p_tenant);
    -- Read under the caller's VPD predicate on memory_store: only stores it may see count.
    SELECT COUNT(*) INTO n FROM memory_store s WHERE s.id = p_store;
    IF n = 0 THEN
      refuse_scope;
    END IF;
  END check_file;
END memgate_guard_pkg;
/
CREATE OR REPLACE TRIGGER guideline_memory_guard
  BEFORE INSERT OR UPDATE OR DELETE ON guideline_memory
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
CREATE OR REPLACE TRIGGER persona_memory_guard
  BEFORE INSERT OR UPDATE OR DELETE ON persona_memory
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
CREATE OR REPLACE TRIGGER toolbox_memory_guard
  BEFORE INSERT OR UPDATE OR DELETE ON toolbox_memory
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
CREATE OR REPLACE TRIGGER entity_memory_guard
  BEFORE INSERT OR UPDATE OR DELETE ON entity_memory
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
CREATE OR REPLACE TRIGGER workflow_memory_guard
  BEFORE INSERT OR UPDATE OR DELETE ON workflow_memory
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
CREATE OR REPLACE TRIGGER knowledge_base_document_guard
  BEFORE INSERT OR UPDATE OR DELETE ON knowledge_base_document
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
CREATE OR REPLACE TRIGGER knowledge_base_chunk_guard
  BEFORE INSERT OR UPDATE OR DELETE ON knowledge_base_chunk
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
CREATE OR REPLACE TRIGGER image_memory_guard
  BEFORE INSERT OR UPDATE OR DELETE ON image_memory
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
CREATE OR REPLACE TRIGGER conversation_memory_guard
  BEFORE INSERT OR UPDATE OR DELETE ON conversation_memory
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
CREATE OR REPLACE TRIGGER summarization_memory_guard
  BEFORE INSERT OR UPDATE OR DELETE ON summarization_memory
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
CREATE OR REPLACE TRIGGER memory_link_guard
  BEFORE INSERT OR UPDATE OR DELETE ON memory_link
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
CREATE OR REPLACE TRIGGER memory_store_guard
  BEFORE INSERT OR UPDATE OR DELETE ON memory_store
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
CREATE OR REPLACE TRIGGER mcp_call_log_guard
  BEFORE INSERT OR UPDATE OR DELETE ON mcp_call_log
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
CREATE OR REPLACE TRIGGER memory_file_guard
  BEFORE INSERT OR UPDATE OR DELETE ON memory_file
  FOR EACH ROW
BEGIN
  IF INSERTING AND :NEW.tenant_id IS NULL THEN
    :NEW.tenant_id := memgate_guard_pkg.bound_tenant;
  END IF;
  IF INSERTING OR UPDATING THEN
    memgate_guard_pkg.check_file(:NEW.tenant_id, :NEW.store_id);
  END IF;
  IF UPDATING OR DELETING THEN
    memgate_guard_pkg.check_file(:OLD.tenant_id, :OLD.store_id);
  END IF;
END;
/
-- A guideline written with no row id starts a guideline of its own: its row id is its id (SQLite's
-- AFTER INSERT trigger base_guideline_memory_row_id, migration 004; here the row is set before it
-- is written).
CREATE OR REPLACE TRIGGER guideline_memory_row_id
  BEFORE INSERT ON guideline_memory
  FOR EACH ROW
  WHEN (NEW.row_id IS NULL)
BEGIN
  :NEW.row_id := :NEW.id;
END;
/
-- Claims are never edited in place: only lifecycle columns may change. SQLite compares OLD and
-- NEW; here the test is UPDATING('column'), true when the UPDATE names the column at all
-- (DBMS_STANDARD's UPDATING(colnam)): stricter, the same for memgate, whose only UPDATE of
-- entity_memory is entity_close_version (SET valid_until). It also works for CLOB columns, where
-- an "UPDATE OF" list cannot name them (ORA-25006). The backend maps ORA-20001 / ORA-20002 to
-- AccessDenied, as the SQLite backend maps its "immutable" / "append-only" messages.
CREATE OR REPLACE TRIGGER entity_memory_immutable
  BEFORE UPDATE ON entity_memory
  FOR EACH ROW
BEGIN
  IF UPDATING('ID') OR UPDATING('SUBJECT') OR UPDATING('PREDICATE') OR UPDATING('CONTENT')
     OR UPDATING('CONTENT_JSON') OR UPDATING('VERSION') OR UPDATING('VALID_FROM')
     OR UPDATING('CREATED_AT') THEN
    RAISE_APPLICATION_ERROR(-20001,
      'memgate: a claim version is immutable; insert the next version instead');
  END IF;
END;
/
-- The call log is append-only (memgate_app has no UPDATE or DELETE on it either, 045; pruning
-- old rows is an operator job, run as the owner), but for erasure (`memgate forget`, SQLite
-- migration 014): an UPDATE may name only the content columns and must set them to the erasure
-- marker (arguments '"[erased]"', result '[erased]', no digest), so the row keeps who called which
-- tool when, and shows that its content was erased.
CREATE OR REPLACE TRIGGER mcp_call_log_append_only
  BEFORE UPDATE ON mcp_call_log
  FOR EACH ROW
BEGIN
  IF UPDATING('CALL_ID') OR UPDATING('TENANT_ID') OR UPDATING('CALLED_AT') OR UPDATING('PRINCIPAL')
     OR UPDATING('USER_ID') OR UPDATING('AGENT_ID') OR UPDATING('THREAD_ID') OR UPDATING('TOOL_NAME')
     OR UPDATING('HANDLER') OR UPDATING('STATUS') OR UPDATING('SESSION_ID') OR UPDATING('TRANSPORT')
     OR UPDATING('TOOLBOX_ROW_ID') OR UPDATING('TOOLBOX_ROW_VERSION') OR UPDATING('CREATED_AT')
     OR :NEW.argument_digest IS NOT NULL
     OR :NEW.arguments_json IS NULL OR DBMS_LOB.SUBSTR(:NEW.arguments_json, 20, 1) <> '"[erased]"'
     OR :NEW.result_text IS NULL OR DBMS_LOB.SUBSTR(:NEW.result_text, 20, 1) <> '[erased]' THEN
    RAISE_APPLICATION_ERROR(-20002, 'memgate: mcp_call_log is append-only');
  END IF;
END;
/
