-- 026_conversations.sql: conversations (SQLite migration 016): the conversation table, turns moved
-- onto their conversation, its indexes and guard.
-- Run by: MEMGATE_OWNER. Re-runnable: CREATE TABLE IF NOT EXISTS, indexes made when missing, the
-- data move touching only rows that still need it, the trigger CREATE OR REPLACE.
--
-- A conversation is keyed by tenant, user, agent and thread name together (no thread: the window's
-- session key), so two users on one thread name have two conversations. It holds the next turn
-- number: an append locks the row (SELECT ... FOR UPDATE, conversation_next_turn.sql), takes the
-- number and writes it back bumped in its transaction, so two concurrent turns of one conversation
-- never take one number (the unique index below is the second wall) and an append reads one row
-- however long the conversation is. The thread's name is thread_name, not thread_id: to VPD
-- thread_id means "visible only in that thread", and a conversation's turns and summaries are
-- recall candidates in the same user's other threads. The table has no thread_id, so its VPD
-- predicate and guard name user and agent only (040, below).
CREATE TABLE IF NOT EXISTS conversation (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_name VARCHAR2(256),
    session_id VARCHAR2(256),
    next_turn NUMBER(10) DEFAULT 1 NOT NULL CHECK (next_turn >= 1),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- One conversation per key. A composite unique index treats NULLs in its columns as equal when the
-- other columns are equal (only a row whose key columns are all NULL is left out, and tenant_id is
-- never NULL), which is SQLite's ifnull(...) index.
CREATE UNIQUE INDEX IF NOT EXISTS conversation_key_uq ON conversation (tenant_id, user_id, agent_id, thread_name, session_id)
/
CREATE INDEX IF NOT EXISTS conversation_thread_name_ix ON conversation (tenant_id, thread_name)
/
CREATE OR REPLACE TRIGGER conversation_guard
  BEFORE INSERT OR UPDATE OR DELETE ON conversation
  FOR EACH ROW
BEGIN
  IF INSERTING AND :NEW.tenant_id IS NULL THEN
    :NEW.tenant_id := memgate_guard_pkg.bound_tenant;
  END IF;
  IF INSERTING OR UPDATING THEN
    memgate_guard_pkg.check_row(:NEW.tenant_id, :NEW.user_id, :NEW.agent_id, NULL);
  END IF;
  IF UPDATING OR DELETING THEN
    memgate_guard_pkg.check_row(:OLD.tenant_id, :OLD.user_id, :OLD.agent_id, NULL);
  END IF;
END;
/
-- Existing turns (schema version 4 numbered them per thread name, across users): one conversation per
-- (tenant, user, agent, thread) of the rows that number turns, or with no thread per (tenant, user,
-- agent, session); each such row gets its conversation, and turns and compaction events leave
-- their thread; a compaction's summary joins its event's conversation and leaves its thread. Only
-- rows without a conversation are touched, so a second run changes nothing. The owner runs it with
-- no identity bound: VPD shows it every row and the guards (022) let the operator path through.
BEGIN
  INSERT INTO conversation (id, tenant_id, user_id, agent_id, thread_name, session_id, next_turn, created_by, created_at)
  SELECT 'conv_' || LOWER(RAWTOHEX(SYS_GUID())), g.tenant_id, g.user_id, g.agent_id, g.thread_id, g.session_key,
         g.next_turn, 'memgate install, schema version 5', g.first_at
  FROM (SELECT tenant_id, user_id, agent_id, thread_id,
               CASE WHEN thread_id IS NULL THEN session_id END AS session_key,
               COALESCE(MAX(turn_index), 0) + 1 AS next_turn, MIN(created_at) AS first_at
          FROM conversation_memory
         WHERE event_type IN ('turn', 'clarify_answer', 'compaction') AND conversation_id IS NULL
         GROUP BY tenant_id, user_id, agent_id, thread_id, CASE WHEN thread_id IS NULL THEN session_id END) g
  WHERE NOT EXISTS (SELECT 1 FROM conversation c
                     WHERE c.tenant_id = g.tenant_id AND DECODE(c.user_id, g.user_id, 1, 0) = 1
                       AND DECODE(c.agent_id, g.agent_id, 1, 0) = 1 AND DECODE(c.thread_name, g.thread_id, 1, 0) = 1
                       AND DECODE(c.session_id, g.session_key, 1, 0) = 1);
  UPDATE conversation_memory m
     SET m.conversation_id = (SELECT c.id FROM conversation c
                               WHERE c.tenant_id = m.tenant_id AND DECODE(c.user_id, m.user_id, 1, 0) = 1
                                 AND DECODE(c.agent_id, m.agent_id, 1, 0) = 1
                                 AND DECODE(c.thread_name, m.thread_id, 1, 0) = 1
                                 AND DECODE(c.session_id, CASE WHEN m.thread_id IS NULL THEN m.session_id END, 1, 0) = 1),
         m.speaker = CASE WHEN m.event_type = 'turn' AND m.role = 'user' THEN m.user_id
                          WHEN m.event_type = 'turn' AND m.role = 'assistant' THEN m.agent_id END
   WHERE m.event_type IN ('turn', 'clarify_answer', 'compaction') AND m.conversation_id IS NULL;
  UPDATE summarization_memory s
     SET s.conversation_id = (SELECT e.conversation_id FROM conversation_memory e
                               WHERE e.id = s.source_id AND e.tenant_id = s.tenant_id AND e.event_type = 'compaction'),
         s.thread_id = NULL
   WHERE s.source_table = 'conversation_memory' AND s.conversation_id IS NULL
     AND s.source_id IN (SELECT id FROM conversation_memory WHERE event_type = 'compaction');
  UPDATE conversation_memory SET thread_id = NULL
   WHERE event_type IN ('turn', 'compaction') AND thread_id IS NOT NULL AND conversation_id IS NOT NULL;
END;
/
COMMIT
/
-- Turn numbers are unique per conversation (schema version 4's conversation_turn_uq, per thread name
-- and session, is dropped). Oracle has no partial index; a row without a turn number has both key
-- columns NULL, and such a row is not indexed, as SQLite's WHERE turn_index IS NOT NULL leaves it out.
DECLARE
  n PLS_INTEGER;
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
  SELECT COUNT(*) INTO n FROM user_indexes WHERE index_name = 'CONVERSATION_TURN_UQ';
  IF n > 0 THEN
    EXECUTE IMMEDIATE 'DROP INDEX conversation_turn_uq';
  END IF;
  ensure('CREATE UNIQUE INDEX conversation_turn_no_uq ON conversation_memory
            (CASE WHEN turn_index IS NOT NULL THEN conversation_id END, turn_index)');
  ensure('CREATE INDEX conversation_events_ix ON conversation_memory (conversation_id, event_type, created_at)');
  ensure('CREATE INDEX summarization_conversation_ix ON summarization_memory (conversation_id)');
END;
/
-- Conversation recall (SQLite migration 017): one row per turn and per compaction summary, written in
-- its source's transaction: the text recall ranks ("Caroline (8 May 2023): words"), who said it, when,
-- its conversation and turn numbers, and its embedding. Its scope is its source's user and agent; it
-- has no thread_id (as turns have none), so its VPD predicate and guard name user and agent only.
-- tenant_id is VARCHAR2(200 BYTE) here (a tenant id is at most 200 ASCII characters, identity.py),
-- so it fits an Oracle Text FILTER BY column: those are stored as SDATA in at most 249 bytes, and a
-- wider column is refused with DRG-11309 (Text Reference, Token Limitations).
CREATE TABLE IF NOT EXISTS conversation_recall (
    seq NUMBER(19) GENERATED BY DEFAULT ON NULL AS IDENTITY PRIMARY KEY,
    id VARCHAR2(64) NOT NULL CONSTRAINT conversation_recall_id_uq UNIQUE,
    tenant_id VARCHAR2(200 BYTE) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    conversation_id VARCHAR2(64) NOT NULL,
    kind VARCHAR2(16) NOT NULL CHECK (kind IN ('turn', 'summary')),
    turn_index NUMBER(10),
    first_turn NUMBER(10),
    speaker VARCHAR2(256),
    said_at VARCHAR2(24) NOT NULL CHECK (REGEXP_LIKE(said_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    content CLOB NOT NULL,
    embedding VECTOR(*, FLOAT32),
    embedding_model VARCHAR2(128),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
CREATE INDEX IF NOT EXISTS conversation_recall_conversation_ix ON conversation_recall (tenant_id, conversation_id, turn_index)
/
CREATE OR REPLACE TRIGGER conversation_recall_guard
  BEFORE INSERT OR UPDATE OR DELETE ON conversation_recall
  FOR EACH ROW
BEGIN
  IF INSERTING AND :NEW.tenant_id IS NULL THEN
    :NEW.tenant_id := memgate_guard_pkg.bound_tenant;
  END IF;
  IF INSERTING OR UPDATING THEN
    memgate_guard_pkg.check_row(:NEW.tenant_id, :NEW.user_id, :NEW.agent_id, NULL);
  END IF;
  IF UPDATING OR DELETING THEN
    memgate_guard_pkg.check_row(:OLD.tenant_id, :OLD.user_id, :OLD.agent_id, NULL);
  END IF;
END;
/
-- The recall text index (SQLite: base_recall_fts_<slot> per tenant) and the vector index on the
-- embeddings. The text index is made as 023's chunk index is (memgate_lexer, no stoplist, MAINTENANCE
-- MANUAL SYNC (ON COMMIT): a turn is found once its transaction commits) and FILTER BY tenant_id, so
-- VPD's tenant predicate can be evaluated inside the index. The vector index is an IVF (neighbor
-- partitions) index, stored on disk, maintained by DML, with the cosine distance recall ranks by;
-- recall_vector_candidates.sql asks for exact distances, which an approximate index does not change,
-- and the optimizer may still use it. An IVF index holds vectors of one dimension: the first vector
-- stored fixes it (AI Vector Search User's Guide 23, Guidelines for Using Vector Indexes), so after
-- changing `[kb] embedder` to a model of another dimension drop conversation_recall_vector_ix, run
-- `memgate reembed`, and run `memgate init` again to make it. Index creation stops the install when
-- it fails; a half-made text index (FAILED) is dropped first on a re-run.
-- NOT VERIFIED on a live database: written from the 23ai documentation.
DECLARE
  n PLS_INTEGER;
BEGIN
  SELECT COUNT(*) INTO n FROM user_indexes WHERE index_name = 'CONVERSATION_RECALL_TEXT_IX'
     AND (status <> 'VALID' OR domidx_status <> 'VALID' OR domidx_opstatus <> 'VALID');
  IF n > 0 THEN
    EXECUTE IMMEDIATE 'DROP INDEX conversation_recall_text_ix FORCE';
  END IF;
  SELECT COUNT(*) INTO n FROM user_indexes WHERE index_name = 'CONVERSATION_RECALL_TEXT_IX';
  IF n = 0 THEN
    EXECUTE IMMEDIATE q'[CREATE INDEX conversation_recall_text_ix ON conversation_recall (content)
      INDEXTYPE IS CTXSYS.CONTEXT
      FILTER BY tenant_id
      PARAMETERS ('LEXER memgate_lexer STOPLIST CTXSYS.EMPTY_STOPLIST MAINTENANCE MANUAL SYNC (ON COMMIT)')]';
  END IF;
  SELECT COUNT(*) INTO n FROM user_indexes WHERE index_name = 'CONVERSATION_RECALL_VECTOR_IX';
  IF n = 0 THEN
    EXECUTE IMMEDIATE 'CREATE VECTOR INDEX conversation_recall_vector_ix ON conversation_recall (embedding)
      ORGANIZATION NEIGHBOR PARTITIONS DISTANCE COSINE';
  END IF;
END;
/
