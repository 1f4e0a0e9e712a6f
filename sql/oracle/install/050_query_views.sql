-- 050_query_views.sql: the reviewed views execute_query may read (sql/sqlite/query_views.sql).
-- Run by: MEMGATE_OWNER. Re-runnable (CREATE OR REPLACE VIEW, GRANT). The query account reads them
-- by their logical names through its synonyms (015: entity_memory -> qv_entity_memory), because
-- the logical names are taken by the tables in this schema.
--
-- The same views as SQLite's query connection builds (manager/backend/sqlite/query_views.py):
-- each the caller's rows current at the call's one evaluation time, which the app shares with the
-- query session as MEMGATE_QCTX's NOW (030); the versioned four (entity, guideline, persona,
-- workflow) show one row per claim or key, the version in force for the caller, and have a
-- <table>_history view with a computed status, by the rules of label_versions
-- (manager/claims/entities.py), in the order lookup_entity reads them (most specific scope first,
-- newest version first, then id):
--   deleted     deleted_at <= now
--   pending     valid_from > now
--   superseded  closed (valid_until <= now) and a newer version exists, or open while a version
--               ahead of it in that order is open too
--   expired     closed, and it is the claim's newest version
--   current     open, and no version ahead of it is
-- A claim's versions may span scopes: "o" is matched on the claim key only, and VPD cuts it, like
-- "t", to the caller's tenant and scope ("When a user directly or indirectly accesses a table,
-- view, or synonym that is protected with an Oracle Virtual Private Database policy, Oracle
-- Database dynamically modifies the SQL statement of the user", Security Guide). The views'
-- definer's rights give access to the tables, not a way around the policy: its function runs in
-- the query session, which sees MEMGATE_QCTX.
--
-- Every view keeps only the rows written by NOW (created_at <= NOW): with execute_query's as_of,
-- NOW is that past moment, and a row written later did not exist then, as Flashback would show.
-- NVL2(x, 1, 0) is 1 when x is set: a row's scope depth is how many of user, agent, thread it names.
-- Text CLOB columns (and the JSON ones, CLOB here) show their first 1,000 characters as
-- VARCHAR2 (execute_query clips cells further); knowledge_base_document.content stays a CLOB,
-- shown as <LOB> and never read, as on SQLite. Left out, as on SQLite: memory_store, memory_file,
-- toolbox_memory, mcp_call_log, tenant_mapping.
-- READ, not SELECT: READ lets a user query the view and nothing else, while SELECT also allows
-- LOCK TABLE and SELECT ... FOR UPDATE (Security Guide 19c, READ and SELECT Object Privileges).
CREATE OR REPLACE VIEW qv_entity_memory_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.subject, t.predicate, t.content,
       DBMS_LOB.SUBSTR(t.content_json, 1000, 1) AS content_json, t.confidence, t.embedding,
       t.version, t.valid_from, t.valid_until, t.deleted_at, t.source_table, t.source_id,
       t.source_version, t.created_by, t.created_at,
       CASE
           WHEN t.deleted_at IS NOT NULL AND t.deleted_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW') THEN 'deleted'
           WHEN t.valid_from > SYS_CONTEXT('MEMGATE_QCTX', 'NOW') THEN 'pending'
           WHEN t.valid_until IS NOT NULL AND t.valid_until <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
               THEN CASE WHEN t.version < (SELECT MAX(o.version) FROM entity_memory o WHERE o.subject = t.subject AND o.predicate = t.predicate AND o.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                         THEN 'superseded' ELSE 'expired' END
           WHEN EXISTS (
               SELECT 1 FROM entity_memory o
               WHERE o.subject = t.subject AND o.predicate = t.predicate
                 AND o.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
                 AND o.valid_from <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
                 AND (o.valid_until IS NULL OR o.valid_until > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                 AND (o.deleted_at IS NULL OR o.deleted_at > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                 -- (o's scope depth, o.version, t.id) > (t's scope depth, t.version, o.id)
                 AND (NVL2(o.user_id, 1, 0) + NVL2(o.agent_id, 1, 0) + NVL2(o.thread_id, 1, 0) > NVL2(t.user_id, 1, 0) + NVL2(t.agent_id, 1, 0) + NVL2(t.thread_id, 1, 0)
                      OR (NVL2(o.user_id, 1, 0) + NVL2(o.agent_id, 1, 0) + NVL2(o.thread_id, 1, 0) = NVL2(t.user_id, 1, 0) + NVL2(t.agent_id, 1, 0) + NVL2(t.thread_id, 1, 0)
                          AND (o.version > t.version OR (o.version = t.version AND t.id > o.id)))))
               THEN 'superseded'
           ELSE 'current'
       END AS status
FROM entity_memory t
WHERE t.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
/
GRANT READ ON qv_entity_memory_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_entity_memory AS
SELECT id, tenant_id, user_id, agent_id, thread_id, subject, predicate, content, content_json,
       confidence, embedding, version, valid_from, valid_until, deleted_at, source_table, source_id,
       source_version, created_by, created_at
FROM qv_entity_memory_history
WHERE status = 'current'
/
GRANT READ ON qv_entity_memory TO memgate_query
/
CREATE OR REPLACE VIEW qv_guideline_memory_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.guideline_key,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content,
       DBMS_LOB.SUBSTR(t.content_json, 1000, 1) AS content_json, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at, t.row_id,
       CASE
           WHEN t.deleted_at IS NOT NULL AND t.deleted_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW') THEN 'deleted'
           WHEN t.valid_from > SYS_CONTEXT('MEMGATE_QCTX', 'NOW') THEN 'pending'
           WHEN t.valid_until IS NOT NULL AND t.valid_until <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
               THEN CASE WHEN t.version < (SELECT MAX(o.version) FROM guideline_memory o WHERE o.guideline_key = t.guideline_key AND o.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                         THEN 'superseded' ELSE 'expired' END
           WHEN EXISTS (
               SELECT 1 FROM guideline_memory o
               WHERE o.guideline_key = t.guideline_key
                 AND o.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
                 AND o.valid_from <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
                 AND (o.valid_until IS NULL OR o.valid_until > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                 AND (o.deleted_at IS NULL OR o.deleted_at > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                 -- (o's scope depth, o.version, t.id) > (t's scope depth, t.version, o.id)
                 AND (NVL2(o.user_id, 1, 0) + NVL2(o.agent_id, 1, 0) + NVL2(o.thread_id, 1, 0) > NVL2(t.user_id, 1, 0) + NVL2(t.agent_id, 1, 0) + NVL2(t.thread_id, 1, 0)
                      OR (NVL2(o.user_id, 1, 0) + NVL2(o.agent_id, 1, 0) + NVL2(o.thread_id, 1, 0) = NVL2(t.user_id, 1, 0) + NVL2(t.agent_id, 1, 0) + NVL2(t.thread_id, 1, 0)
                          AND (o.version > t.version OR (o.version = t.version AND t.id > o.id)))))
               THEN 'superseded'
           ELSE 'current'
       END AS status
FROM guideline_memory t
WHERE t.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
/
GRANT READ ON qv_guideline_memory_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_guideline_memory AS
SELECT id, tenant_id, user_id, agent_id, thread_id, guideline_key, content, content_json, version,
       valid_from, valid_until, deleted_at, source_table, source_id, source_version, created_by,
       created_at, row_id
FROM qv_guideline_memory_history
WHERE status = 'current'
/
GRANT READ ON qv_guideline_memory TO memgate_query
/
CREATE OR REPLACE VIEW qv_persona_memory_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.persona_key, t.name,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.version, t.valid_from, t.valid_until,
       t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by, t.created_at,
       CASE
           WHEN t.deleted_at IS NOT NULL AND t.deleted_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW') THEN 'deleted'
           WHEN t.valid_from > SYS_CONTEXT('MEMGATE_QCTX', 'NOW') THEN 'pending'
           WHEN t.valid_until IS NOT NULL AND t.valid_until <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
               THEN CASE WHEN t.version < (SELECT MAX(o.version) FROM persona_memory o WHERE o.persona_key = t.persona_key AND o.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                         THEN 'superseded' ELSE 'expired' END
           WHEN EXISTS (
               SELECT 1 FROM persona_memory o
               WHERE o.persona_key = t.persona_key
                 AND o.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
                 AND o.valid_from <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
                 AND (o.valid_until IS NULL OR o.valid_until > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                 AND (o.deleted_at IS NULL OR o.deleted_at > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                 -- (o's scope depth, o.version, t.id) > (t's scope depth, t.version, o.id)
                 AND (NVL2(o.user_id, 1, 0) + NVL2(o.agent_id, 1, 0) + NVL2(o.thread_id, 1, 0) > NVL2(t.user_id, 1, 0) + NVL2(t.agent_id, 1, 0) + NVL2(t.thread_id, 1, 0)
                      OR (NVL2(o.user_id, 1, 0) + NVL2(o.agent_id, 1, 0) + NVL2(o.thread_id, 1, 0) = NVL2(t.user_id, 1, 0) + NVL2(t.agent_id, 1, 0) + NVL2(t.thread_id, 1, 0)
                          AND (o.version > t.version OR (o.version = t.version AND t.id > o.id)))))
               THEN 'superseded'
           ELSE 'current'
       END AS status
FROM persona_memory t
WHERE t.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
/
GRANT READ ON qv_persona_memory_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_persona_memory AS
SELECT id, tenant_id, user_id, agent_id, thread_id, persona_key, name, content, version, valid_from,
       valid_until, deleted_at, source_table, source_id, source_version, created_by, created_at
FROM qv_persona_memory_history
WHERE status = 'current'
/
GRANT READ ON qv_persona_memory TO memgate_query
/
CREATE OR REPLACE VIEW qv_workflow_memory_history AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.workflow_key, t.title,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content,
       DBMS_LOB.SUBSTR(t.steps_json, 1000, 1) AS steps_json, t.version, t.valid_from, t.valid_until,
       t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by, t.created_at,
       CASE
           WHEN t.deleted_at IS NOT NULL AND t.deleted_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW') THEN 'deleted'
           WHEN t.valid_from > SYS_CONTEXT('MEMGATE_QCTX', 'NOW') THEN 'pending'
           WHEN t.valid_until IS NOT NULL AND t.valid_until <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
               THEN CASE WHEN t.version < (SELECT MAX(o.version) FROM workflow_memory o WHERE o.workflow_key = t.workflow_key AND o.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                         THEN 'superseded' ELSE 'expired' END
           WHEN EXISTS (
               SELECT 1 FROM workflow_memory o
               WHERE o.workflow_key = t.workflow_key
                 AND o.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
                 AND o.valid_from <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
                 AND (o.valid_until IS NULL OR o.valid_until > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                 AND (o.deleted_at IS NULL OR o.deleted_at > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
                 -- (o's scope depth, o.version, t.id) > (t's scope depth, t.version, o.id)
                 AND (NVL2(o.user_id, 1, 0) + NVL2(o.agent_id, 1, 0) + NVL2(o.thread_id, 1, 0) > NVL2(t.user_id, 1, 0) + NVL2(t.agent_id, 1, 0) + NVL2(t.thread_id, 1, 0)
                      OR (NVL2(o.user_id, 1, 0) + NVL2(o.agent_id, 1, 0) + NVL2(o.thread_id, 1, 0) = NVL2(t.user_id, 1, 0) + NVL2(t.agent_id, 1, 0) + NVL2(t.thread_id, 1, 0)
                          AND (o.version > t.version OR (o.version = t.version AND t.id > o.id)))))
               THEN 'superseded'
           ELSE 'current'
       END AS status
FROM workflow_memory t
WHERE t.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
/
GRANT READ ON qv_workflow_memory_history TO memgate_query
/
CREATE OR REPLACE VIEW qv_workflow_memory AS
SELECT id, tenant_id, user_id, agent_id, thread_id, workflow_key, title, content, steps_json,
       version, valid_from, valid_until, deleted_at, source_table, source_id, source_version,
       created_by, created_at
FROM qv_workflow_memory_history
WHERE status = 'current'
/
GRANT READ ON qv_workflow_memory TO memgate_query
/
CREATE OR REPLACE VIEW qv_summarization_memory AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.title,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.period_start, t.period_end,
       DBMS_LOB.SUBSTR(t.source_versions_json, 1000, 1) AS source_versions_json, t.version,
       t.valid_from, t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version,
       t.created_by, t.created_at, t.conversation_id
FROM summarization_memory t
WHERE t.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW') AND t.valid_from <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
  AND (t.valid_until IS NULL OR t.valid_until > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
  AND (t.deleted_at IS NULL OR t.deleted_at > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
/
GRANT READ ON qv_summarization_memory TO memgate_query
/
CREATE OR REPLACE VIEW qv_knowledge_base_document AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.collection, t.title, t.source_uri,
       t.mime_type, t.content_hash, t.token_count, t.content,
       DBMS_LOB.SUBSTR(t.metadata_json, 1000, 1) AS metadata_json, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at
FROM knowledge_base_document t
WHERE t.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW') AND t.valid_from <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
  AND (t.valid_until IS NULL OR t.valid_until > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
  AND (t.deleted_at IS NULL OR t.deleted_at > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
/
GRANT READ ON qv_knowledge_base_document TO memgate_query
/
-- seq, char_start and char_end are left out, as on SQLite (_INTERNAL_COLUMNS in
-- manager/backend/sqlite/query_views.py): bookkeeping, and the catalog is sent on every turn.
CREATE OR REPLACE VIEW qv_knowledge_base_chunk AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.document_id, t.collection,
       t.position, DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content, t.token_count,
       t.embedding, t.embedding_model, t.version, t.valid_from, t.valid_until,
       t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by, t.created_at
FROM knowledge_base_chunk t
WHERE t.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW') AND t.valid_from <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
  AND (t.valid_until IS NULL OR t.valid_until > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
  AND (t.deleted_at IS NULL OR t.deleted_at > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
/
GRANT READ ON qv_knowledge_base_chunk TO memgate_query
/
-- session_id and window_id are left out, as on SQLite (_INTERNAL_COLUMNS): the bookkeeping of windows.
CREATE OR REPLACE VIEW qv_conversation_memory AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.event_type, t.role,
       DBMS_LOB.SUBSTR(t.content, 1000, 1) AS content,
       DBMS_LOB.SUBSTR(t.content_json, 1000, 1) AS content_json, t.version, t.valid_from,
       t.valid_until, t.deleted_at, t.source_table, t.source_id, t.source_version, t.created_by,
       t.created_at, t.turn_index, t.token_count, t.conversation_id, t.speaker
FROM conversation_memory t
WHERE t.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW') AND t.valid_from <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
  AND (t.valid_until IS NULL OR t.valid_until > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
  AND (t.deleted_at IS NULL OR t.deleted_at > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
/
GRANT READ ON qv_conversation_memory TO memgate_query
/
-- What the caller proposed with `remember` and the gate's decision (024): kind, content, decision,
-- rule, record_id. The rest (scope, subject, predicate, evidence, the hash, the assessor, the
-- policy version, the review columns) is left out, as on SQLite (_INTERNAL_COLUMNS): the catalog
-- is sent on every turn, and `memgate candidates show` has them all.
CREATE OR REPLACE VIEW qv_memory_candidate AS
SELECT t.id, t.tenant_id, t.user_id, t.agent_id, t.thread_id, t.kind, t.content, t.decision, t.rule,
       t.record_id, t.version, t.valid_from, t.valid_until, t.deleted_at, t.source_table, t.source_id,
       t.source_version, t.created_by, t.created_at
FROM memory_candidate t
WHERE t.created_at <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW') AND t.valid_from <= SYS_CONTEXT('MEMGATE_QCTX', 'NOW')
  AND (t.valid_until IS NULL OR t.valid_until > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
  AND (t.deleted_at IS NULL OR t.deleted_at > SYS_CONTEXT('MEMGATE_QCTX', 'NOW'))
/
GRANT READ ON qv_memory_candidate TO memgate_query
/
