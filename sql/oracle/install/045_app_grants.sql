-- 045_app_grants.sql: what memgate_app may do to each table.
-- Run by: MEMGATE_OWNER. Re-runnable (GRANT is idempotent). Runs after 040, so the app never
-- holds a privilege on a table that has no VPD policy yet.
--
-- The app may read and write what SQLite's tenant views let a walled connection read and write,
-- and VPD (040) with the guards (022) cut every statement to the caller's tenant and scope:
-- SELECT, INSERT, UPDATE, DELETE on the memory tables (a DELETE outside the scope deletes
-- nothing, as on SQLite). Stricter than SQLite on purpose: mcp_call_log gets SELECT and INSERT
-- only (append-only: no UPDATE, which 022 also refuses, and no DELETE; pruning is an operator
-- job run as the owner). tenant_mapping: nothing (the operator session reads it as the owner).
-- memgate_schema: SELECT (the backend checks the installed version).
-- FLASHBACK on the tables a context replay reads (the app runs
-- DBMS_FLASHBACK.ENABLE_AT_SYSTEM_CHANGE_NUMBER, EXECUTE granted in 010): NOT VERIFIED whether
-- session-level Flashback needs this object privilege as AS OF queries on another schema's table
-- do; VPD applies either way.
-- The backend sets CURRENT_SCHEMA = MEMGATE_OWNER in its session callback, so the named
-- statements say entity_memory rather than memgate_owner.entity_memory.
GRANT SELECT, INSERT, UPDATE, DELETE, FLASHBACK ON guideline_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE, FLASHBACK ON persona_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE, FLASHBACK ON toolbox_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE, FLASHBACK ON entity_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE, FLASHBACK ON workflow_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE, FLASHBACK ON knowledge_base_document TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE, FLASHBACK ON knowledge_base_chunk TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE, FLASHBACK ON conversation_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE, FLASHBACK ON summarization_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_store TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_file TO memgate_app
/
GRANT SELECT, INSERT ON mcp_call_log TO memgate_app
/
GRANT SELECT ON memgate_schema TO memgate_app
/
