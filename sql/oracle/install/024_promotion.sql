-- 024_promotion.sql: the promotion gate's tables (SQLite migration 013), their indexes and guards,
-- and memory_candidate as a link end.
-- Run by: MEMGATE_OWNER. Re-runnable: CREATE TABLE IF NOT EXISTS, indexes skipped when they exist,
-- triggers CREATE OR REPLACE, the link end checks replaced only while they lack memory_candidate.
--
-- memory_candidate is one proposal of the `remember` tool and the gate's decision on it;
-- memory_assessment one typed question an assessor answered about it (manager/promotion/).
-- Both carry tenant_id and the scope columns: the VPD policy (040) and the guards below wall them
-- like every other table. The query account reads candidates through qv_memory_candidate (050).
CREATE TABLE IF NOT EXISTS memory_candidate (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    kind VARCHAR2(16) NOT NULL CHECK (kind IN ('fact', 'preference', 'procedure', 'note')),
    scope VARCHAR2(16) NOT NULL CHECK (scope IN ('user', 'agent', 'thread', 'tenant')),
    subject VARCHAR2(512),
    predicate VARCHAR2(256),
    content VARCHAR2(4000) NOT NULL,
    content_hash VARCHAR2(64) NOT NULL,
    evidence_json CLOB NOT NULL CHECK (evidence_json IS JSON),
    decision VARCHAR2(16) NOT NULL CHECK (decision IN ('promoted', 'pending', 'duplicate', 'approved', 'rejected')),
    rule VARCHAR2(256) NOT NULL,
    record_type VARCHAR2(64),
    record_id VARCHAR2(64),
    assessor VARCHAR2(64),
    policy_version NUMBER(10) DEFAULT 0 NOT NULL,
    reassess NUMBER(1) DEFAULT 0 NOT NULL CHECK (reassess IN (0, 1)),
    decided_by VARCHAR2(512),
    decided_at VARCHAR2(24) CHECK (REGEXP_LIKE(decided_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    CHECK (kind <> 'fact' OR (subject IS NOT NULL AND predicate IS NOT NULL))
)
/
CREATE TABLE IF NOT EXISTS memory_assessment (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    candidate_id VARCHAR2(64) NOT NULL,
    question VARCHAR2(32) NOT NULL CHECK (question IN ('supported', 'scope_fits', 'conflict')),
    question_version NUMBER(10) NOT NULL,
    policy_version NUMBER(10) NOT NULL,
    assessor VARCHAR2(64) NOT NULL,
    probability BINARY_DOUBLE,
    threshold BINARY_DOUBLE NOT NULL,
    passed NUMBER(1) NOT NULL CHECK (passed IN (0, 1)),
    latency_ms BINARY_DOUBLE NOT NULL,
    note VARCHAR2(4000),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
DECLARE
  PROCEDURE ensure(p_ddl VARCHAR2) IS
  BEGIN
    EXECUTE IMMEDIATE p_ddl;
  EXCEPTION
    WHEN OTHERS THEN
      IF SQLCODE NOT IN (-955, -1408) THEN
        RAISE;
      END IF;
  END ensure;
BEGIN
  ensure('CREATE INDEX memory_candidate_hash_ix ON memory_candidate (tenant_id, content_hash)');
  ensure('CREATE INDEX memory_candidate_recent_ix ON memory_candidate (tenant_id, user_id, agent_id, created_at)');
  ensure('CREATE INDEX memory_candidate_record_ix ON memory_candidate (tenant_id, record_id)');
  ensure('CREATE INDEX memory_assessment_candidate_ix ON memory_assessment (tenant_id, candidate_id)');
END;
/
-- A pending fact `contradicts` the current one: memory_candidate becomes a link end. 020 wrote the
-- end checks inline, so Oracle named them (SYS_C...). For each end column without its named check
-- (memory_link_from_type_ck, memory_link_to_type_ck), every system-named check constraint on that
-- column alone is dropped and the named one added. They are found by name and column
-- (USER_CONSTRAINTS.GENERATED = 'GENERATED NAME', USER_CONS_COLUMNS; Database Reference), never by
-- matching SEARCH_CONDITION_VC's text, whose spelling the docs do not fix. The column's NOT NULL is
-- such a check too (type C, system-named): it is dropped with them and put back by MODIFY ... NOT
-- NULL (ORA-01442, already NOT NULL, is fine). The table-level check naming four columns stays.
-- Once both named checks exist a re-run changes nothing.
DECLARE
  c_ends CONSTANT VARCHAR2(1000) := q'['entity_memory', 'workflow_memory', 'summarization_memory', 'knowledge_base_document', 'knowledge_base_chunk', 'conversation_memory', 'image_memory', 'memory_candidate']';
  n PLS_INTEGER;
BEGIN
  FOR e IN (SELECT 'FROM_TYPE' AS col FROM dual UNION ALL SELECT 'TO_TYPE' FROM dual) LOOP
    SELECT COUNT(*) INTO n FROM user_constraints
     WHERE table_name = 'MEMORY_LINK' AND constraint_name = 'MEMORY_LINK_' || e.col || '_CK';
    IF n = 0 THEN
      FOR c IN (SELECT k.constraint_name FROM user_constraints k
                 WHERE k.table_name = 'MEMORY_LINK' AND k.constraint_type = 'C' AND k.generated = 'GENERATED NAME'
                   AND EXISTS (SELECT 1 FROM user_cons_columns u
                                WHERE u.constraint_name = k.constraint_name AND u.column_name = e.col)
                   AND NOT EXISTS (SELECT 1 FROM user_cons_columns u
                                    WHERE u.constraint_name = k.constraint_name AND u.column_name <> e.col)) LOOP
        EXECUTE IMMEDIATE 'ALTER TABLE memory_link DROP CONSTRAINT "' || c.constraint_name || '"';
      END LOOP;
      BEGIN
        EXECUTE IMMEDIATE 'ALTER TABLE memory_link MODIFY (' || e.col || ' NOT NULL)';
      EXCEPTION
        WHEN OTHERS THEN
          IF SQLCODE != -1442 THEN
            RAISE;
          END IF;
      END;
      EXECUTE IMMEDIATE 'ALTER TABLE memory_link ADD CONSTRAINT memory_link_' || e.col || '_ck CHECK ('
        || e.col || ' IN (' || c_ends || '))';
    END IF;
  END LOOP;
END;
/
-- The write guards of 022 for the two tables: tenant and scope, with SQLite's two refusals.
CREATE OR REPLACE TRIGGER memory_candidate_guard
  BEFORE INSERT OR UPDATE OR DELETE ON memory_candidate
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
CREATE OR REPLACE TRIGGER memory_assessment_guard
  BEFORE INSERT OR UPDATE OR DELETE ON memory_assessment
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
