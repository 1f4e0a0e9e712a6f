-- 045_app_grants.sql: what memgate_app may do to each table, and no more.
-- Run by: MEMGATE_OWNER. Re-runnable (GRANT is idempotent). Runs after 040, so the app never
-- holds a privilege on a table that has no VPD policy yet.
--
-- Versioned memory is never deleted (deleted_at, valid_until): no DELETE. The call log is
-- append-only: SELECT, INSERT. tenant_mapping: nothing (memgate_ctx_pkg.resolve_mapping reads it).
-- memgate_schema: SELECT only (the backend checks the installed version).
-- The backend sets CURRENT_SCHEMA = MEMGATE_OWNER in its session callback so the named
-- statements can say entity_memory rather than memgate_owner.entity_memory.
GRANT SELECT, INSERT, UPDATE ON guideline_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE ON persona_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE ON toolbox_memory TO memgate_app
/
-- UPDATE only closes a version (valid_until); the trigger in 022 refuses anything else
GRANT SELECT, INSERT, UPDATE ON entity_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE ON workflow_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE ON knowledge_base_document TO memgate_app
/
-- DELETE: a changed document's chunks are replaced (kb_chunks_delete_for_document)
GRANT SELECT, INSERT, UPDATE, DELETE ON knowledge_base_chunk TO memgate_app
/
GRANT SELECT, INSERT, UPDATE ON conversation_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE ON summarization_memory TO memgate_app
/
-- DELETE: `memgate memory clear` removes a store with its files
GRANT SELECT, INSERT, DELETE ON memory_store TO memgate_app
/
-- memory files are working memory: real deletes, compare-and-set updates
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_file TO memgate_app
/
GRANT SELECT, INSERT ON mcp_call_log TO memgate_app
/
GRANT SELECT, INSERT, UPDATE ON memory_link TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_image TO memgate_app
/
GRANT SELECT ON memgate_schema TO memgate_app
/
