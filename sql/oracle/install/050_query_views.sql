-- 050_query_views.sql: the reviewed views execute_query may read, and their history views.
-- Run by: MEMGATE_OWNER. Re-runnable (CREATE OR REPLACE VIEW, GRANT). 055 (a DBA) then gives
-- memgate_query synonyms with the logical names (entity_memory -> qv_entity_memory), because the
-- logical names are taken by the tables in this schema.
--
-- The list follows sql/sqlite/query_views.sql, plus conversation_memory: SQLite leaves it out
-- because its tenant view is not user- or thread-scoped; here VPD scopes it by user, agent and
-- thread like every other table. That is a review decision to confirm (docs/design-deltas.md):
-- drop its two views, grants and catalog rows if the review keeps it out.
--
-- <name>: rows current now (valid_from <= now, valid_until null or later, not deleted).
-- <name>_history: every version the caller may see, with status = current | superseded
-- (closed, and a later version of the same key and scope exists) | expired (closed, no later
-- version) | deleted | pending (valid_from in the future).
-- Long CLOB text is shown as its first 1,000 characters (execute_query clips cells anyway);
-- knowledge_base_document.content stays a CLOB, shown as <LOB> and never read, as on SQLite.
--
-- VPD still applies: these views are owned by MEMGATE_OWNER, but "when a user directly or
-- indirectly accesses a table, view, or synonym that is protected with an Oracle Virtual Private
-- Database policy, Oracle Database dynamically modifies the SQL statement of the user" (Security
-- Guide, Using Oracle VPD to Control Data Access, translated from the Japanese 18c edition), and
-- the policy function runs "in the same
-- current user session" (Security Guide 19c, Components of an Oracle VPD Policy). So a query by
-- memgate_query through qv_entity_memory gets the predicate for SESSION_USER = MEMGATE_QUERY, over
-- the identity the app shared for that call (memgate_qctx, 030/040); the views' definer's rights
-- grant access to the rows' table, not a way around the policy.
--
-- Same-scope tests use DECODE, which is NULL-safe ("In a DECODE function, Oracle considers two
-- nulls to be equivalent", SQL Language Reference, DECODE).
-- READ, not SELECT: READ lets a user query the view and nothing else, while SELECT also allows
-- LOCK TABLE and SELECT ... FOR UPDATE (new in 12.1.0.2: Object-Relational Developer's Guide 12.1,
-- changes in this release; Security Guide 19c, READ and SELECT Object Privileges).
CREATE OR REPLACE VIEW qv_entity_memory AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.subject, t.predicate, t.content,
       t.content_json, t.confidence, t.embedding, t.embedding_model, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at
FROM entity_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
WHERE t.valid_from <= n.now_utc
  AND (t.valid_until IS NULL OR t.valid_until > n.now_utc)
  AND t.deleted_at IS NULL
/
CREATE OR REPLACE VIEW qv_entity_memory_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.subject, t.predicate, t.content,
       t.content_json, t.confidence, t.embedding, t.embedding_model, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at,
       CASE WHEN t.deleted_at IS NOT NULL THEN 'deleted'
            WHEN t.valid_from > n.now_utc THEN 'pending'
            WHEN t.valid_until IS NOT NULL AND t.valid_until <= n.now_utc THEN
              CASE WHEN EXISTS (SELECT 1 FROM entity_memory s
                                 WHERE s.tenant_id = t.tenant_id
                                   AND s.subject = t.subject
                                   AND s.predicate = t.predicate
                                   AND DECODE(s.user_id, t.user_id, 1, 0) = 1
                                   AND DECODE(s.agent_id, t.agent_id, 1, 0) = 1
                                   AND DECODE(s.thread_id, t.thread_id, 1, 0) = 1
                                   AND s.version > t.version)
                    THEN 'superseded' ELSE 'expired' END
            ELSE 'current' END AS status
FROM entity_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
/
GRANT READ ON qv_entity_memory TO memgate_query
/
GRANT READ ON qv_entity_memory_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_guideline_memory AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.guideline_key,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.content_json, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at
FROM guideline_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
WHERE t.valid_from <= n.now_utc
  AND (t.valid_until IS NULL OR t.valid_until > n.now_utc)
  AND t.deleted_at IS NULL
/
CREATE OR REPLACE VIEW qv_guideline_memory_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.guideline_key,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.content_json, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at,
       CASE WHEN t.deleted_at IS NOT NULL THEN 'deleted'
            WHEN t.valid_from > n.now_utc THEN 'pending'
            WHEN t.valid_until IS NOT NULL AND t.valid_until <= n.now_utc THEN
              CASE WHEN EXISTS (SELECT 1 FROM guideline_memory s
                                 WHERE s.tenant_id = t.tenant_id
                                   AND s.guideline_key = t.guideline_key
                                   AND DECODE(s.user_id, t.user_id, 1, 0) = 1
                                   AND DECODE(s.agent_id, t.agent_id, 1, 0) = 1
                                   AND DECODE(s.thread_id, t.thread_id, 1, 0) = 1
                                   AND s.version > t.version)
                    THEN 'superseded' ELSE 'expired' END
            ELSE 'current' END AS status
FROM guideline_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
/
GRANT READ ON qv_guideline_memory TO memgate_query
/
GRANT READ ON qv_guideline_memory_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_persona_memory AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.persona_key, t.name,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.version, t.valid_from, t.valid_until,
       t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by, t.created_at
FROM persona_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
WHERE t.valid_from <= n.now_utc
  AND (t.valid_until IS NULL OR t.valid_until > n.now_utc)
  AND t.deleted_at IS NULL
/
CREATE OR REPLACE VIEW qv_persona_memory_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.persona_key, t.name,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.version, t.valid_from, t.valid_until,
       t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by, t.created_at,
       CASE WHEN t.deleted_at IS NOT NULL THEN 'deleted'
            WHEN t.valid_from > n.now_utc THEN 'pending'
            WHEN t.valid_until IS NOT NULL AND t.valid_until <= n.now_utc THEN
              CASE WHEN EXISTS (SELECT 1 FROM persona_memory s
                                 WHERE s.tenant_id = t.tenant_id
                                   AND s.persona_key = t.persona_key
                                   AND DECODE(s.user_id, t.user_id, 1, 0) = 1
                                   AND DECODE(s.agent_id, t.agent_id, 1, 0) = 1
                                   AND DECODE(s.thread_id, t.thread_id, 1, 0) = 1
                                   AND s.version > t.version)
                    THEN 'superseded' ELSE 'expired' END
            ELSE 'current' END AS status
FROM persona_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
/
GRANT READ ON qv_persona_memory TO memgate_query
/
GRANT READ ON qv_persona_memory_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_workflow_memory AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.workflow_key, t.title,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.steps_json, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at
FROM workflow_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
WHERE t.valid_from <= n.now_utc
  AND (t.valid_until IS NULL OR t.valid_until > n.now_utc)
  AND t.deleted_at IS NULL
/
CREATE OR REPLACE VIEW qv_workflow_memory_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.workflow_key, t.title,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.steps_json, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at,
       CASE WHEN t.deleted_at IS NOT NULL THEN 'deleted'
            WHEN t.valid_from > n.now_utc THEN 'pending'
            WHEN t.valid_until IS NOT NULL AND t.valid_until <= n.now_utc THEN
              CASE WHEN EXISTS (SELECT 1 FROM workflow_memory s
                                 WHERE s.tenant_id = t.tenant_id
                                   AND s.workflow_key = t.workflow_key
                                   AND DECODE(s.user_id, t.user_id, 1, 0) = 1
                                   AND DECODE(s.agent_id, t.agent_id, 1, 0) = 1
                                   AND DECODE(s.thread_id, t.thread_id, 1, 0) = 1
                                   AND s.version > t.version)
                    THEN 'superseded' ELSE 'expired' END
            ELSE 'current' END AS status
FROM workflow_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
/
GRANT READ ON qv_workflow_memory TO memgate_query
/
GRANT READ ON qv_workflow_memory_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_summarization_memory AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.title,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.period_start, t.period_end,
       t.source_versions_json, t.version, t.valid_from, t.valid_until, t.deleted_at,
       t.source_table, t.source_id, t.source_version, t.created_by, t.created_at
FROM summarization_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
WHERE t.valid_from <= n.now_utc
  AND (t.valid_until IS NULL OR t.valid_until > n.now_utc)
  AND t.deleted_at IS NULL
/
CREATE OR REPLACE VIEW qv_summarization_memory_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.title,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.period_start, t.period_end,
       t.source_versions_json, t.version, t.valid_from, t.valid_until, t.deleted_at,
       t.source_table, t.source_id, t.source_version, t.created_by, t.created_at,
       CASE WHEN t.deleted_at IS NOT NULL THEN 'deleted'
            WHEN t.valid_from > n.now_utc THEN 'pending'
            WHEN t.valid_until IS NOT NULL AND t.valid_until <= n.now_utc THEN
              'expired'
            ELSE 'current' END AS status
FROM summarization_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
/
GRANT READ ON qv_summarization_memory TO memgate_query
/
GRANT READ ON qv_summarization_memory_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_knowledge_base_document AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.collection, t.title,
       t.source_uri, t.mime_type, t.content_hash, t.token_count, t.content, t.metadata_json,
       t.version, t.valid_from, t.valid_until, t.deleted_at, t.source_table, t.source_id,
       t.source_version, t.created_by, t.created_at
FROM knowledge_base_document t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
WHERE t.valid_from <= n.now_utc
  AND (t.valid_until IS NULL OR t.valid_until > n.now_utc)
  AND t.deleted_at IS NULL
/
CREATE OR REPLACE VIEW qv_knowledge_base_document_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.collection, t.title,
       t.source_uri, t.mime_type, t.content_hash, t.token_count, t.content, t.metadata_json,
       t.version, t.valid_from, t.valid_until, t.deleted_at, t.source_table, t.source_id,
       t.source_version, t.created_by, t.created_at,
       CASE WHEN t.deleted_at IS NOT NULL THEN 'deleted'
            WHEN t.valid_from > n.now_utc THEN 'pending'
            WHEN t.valid_until IS NOT NULL AND t.valid_until <= n.now_utc THEN
              'expired'
            ELSE 'current' END AS status
FROM knowledge_base_document t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
/
GRANT READ ON qv_knowledge_base_document TO memgate_query
/
GRANT READ ON qv_knowledge_base_document_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_knowledge_base_chunk AS
SELECT t.seq, t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.document_id,
       t.collection, t.position, DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.token_count,
       t.char_start, t.char_end, t.embedding, t.embedding_model, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at
FROM knowledge_base_chunk t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
WHERE t.valid_from <= n.now_utc
  AND (t.valid_until IS NULL OR t.valid_until > n.now_utc)
  AND t.deleted_at IS NULL
/
CREATE OR REPLACE VIEW qv_knowledge_base_chunk_history AS
SELECT t.seq, t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.document_id,
       t.collection, t.position, DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.token_count,
       t.char_start, t.char_end, t.embedding, t.embedding_model, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at,
       CASE WHEN t.deleted_at IS NOT NULL THEN 'deleted'
            WHEN t.valid_from > n.now_utc THEN 'pending'
            WHEN t.valid_until IS NOT NULL AND t.valid_until <= n.now_utc THEN
              'expired'
            ELSE 'current' END AS status
FROM knowledge_base_chunk t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
/
GRANT READ ON qv_knowledge_base_chunk TO memgate_query
/
GRANT READ ON qv_knowledge_base_chunk_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_conversation_memory AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.event_type, t.role,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.content_json, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at
FROM conversation_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
WHERE t.valid_from <= n.now_utc
  AND (t.valid_until IS NULL OR t.valid_until > n.now_utc)
  AND t.deleted_at IS NULL
/
CREATE OR REPLACE VIEW qv_conversation_memory_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.event_type, t.role,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.content_json, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at,
       CASE WHEN t.deleted_at IS NOT NULL THEN 'deleted'
            WHEN t.valid_from > n.now_utc THEN 'pending'
            WHEN t.valid_until IS NOT NULL AND t.valid_until <= n.now_utc THEN
              'expired'
            ELSE 'current' END AS status
FROM conversation_memory t
CROSS JOIN (SELECT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') AS now_utc FROM dual) n
/
GRANT READ ON qv_conversation_memory TO memgate_query
/
GRANT READ ON qv_conversation_memory_history TO memgate_query
/
