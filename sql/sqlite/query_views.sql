-- The reviewed views execute_query may read: the allowlist for both walls, admission
-- (manager/query/admission.py) and the read-only query connection's authorizer
-- (manager/backend/sqlite/query.py), and the catalog the tool's description is generated
-- from, so the agent is told exactly what it may query. Adding a row is a review decision,
-- not a convenience.
--
-- On the query connection each name is a TEMP view (manager/backend/sqlite/query_views.py)
-- over the walled view main.<table>, so it holds only the tenant's rows in the caller's
-- scope (user, agent, thread; NULL shared) and, of those, only the rows current at
-- app_now(), the call's one evaluation time: valid_from <= now, valid_until NULL or later,
-- deleted_at NULL or later. A table with a claim key (second column) is versioned: its view
-- shows one row per claim, the version in force for the caller (most specific scope first,
-- then newest), and <table>_history shows every version with a computed status: current,
-- superseded, expired, deleted or pending (query_view_versioned.sql; the same rules as
-- lookup_entity's labels in manager/claims/entities.py).
--
-- Reviewed in: the caller's knowledge and conversation.
--   entity_memory, guideline_memory, persona_memory, workflow_memory (versioned),
--   summarization_memory, knowledge_base_document (content is a CLOB: shown as <LOB>),
--   knowledge_base_chunk, conversation_memory (turns and events of the caller's threads:
--   the wall scopes them by user, agent and thread), memory_candidate (what the caller
--   proposed with `remember` and what the promotion gate decided, with its rule).
-- Left out, on purpose:
--   memory_store,        the memory tool's files are working memory, read and written
--   memory_file          through the memory tool with its caps and texts.
--   toolbox_memory       tool definitions and access policies: configuration, not memory,
--                        and it would show the agent tools its roles do not have.
--   mcp_call_log         the audit trail: arguments and results, for the operator.
--   memory_assessment    the gate's typed assessments: the operator reads them with
--                        `memgate candidates show`; a candidate row names its decision.
--   image_memory         its bytes are for expand and fetch_image; its rows would add a line
--                        to execute_query's description, sent on every turn, and the images
--                        are rows of knowledge_base_document already (mime_type image/...,
--                        content their description).
SELECT column1 AS table_name, column2 AS claim_key
FROM (VALUES ('entity_memory', 'subject predicate'),
             ('guideline_memory', 'guideline_key'),
             ('persona_memory', 'persona_key'),
             ('workflow_memory', 'workflow_key'),
             ('summarization_memory', NULL),
             ('knowledge_base_document', NULL),
             ('knowledge_base_chunk', NULL),
             ('conversation_memory', NULL),
             ('memory_candidate', NULL))
