-- 045_app_grants.sql: what memgate_app may do to each table.
-- Run by: MEMGATE_OWNER. Re-runnable (GRANT is idempotent). Runs after 040, so the app never
-- holds a privilege on a table that has no VPD policy yet.
--
-- The app may read and write what SQLite's tenant views let a walled connection read and write,
-- and VPD (040) with the guards (022) cut every statement to the caller's tenant and scope:
-- SELECT, INSERT, UPDATE, DELETE on the memory tables (a DELETE outside the scope deletes
-- nothing, as on SQLite). Stricter than SQLite on purpose: mcp_call_log gets SELECT and INSERT
-- only (append-only: no UPDATE, which 022 also refuses, and no DELETE; pruning is an operator
-- job run as the owner), and so does mcp_call_cited, the ids its ok calls cited (032).
-- tenant_mapping and server_secret: nothing (the operator session reads them as the owner).
-- memgate_schema: SELECT (the backend checks the installed version).
-- No FLASHBACK object privilege: the app reads the current SCN for a context manifest, and reads
-- as of it only through session-level DBMS_FLASHBACK (EXECUTE granted in 010), which needs no
-- object grant (schema version 1 granted FLASHBACK; 045 revokes it, below).
-- The backend sets CURRENT_SCHEMA = MEMGATE_OWNER in its session callback, so the named
-- statements say entity_memory rather than memgate_owner.entity_memory.
GRANT SELECT, INSERT, UPDATE, DELETE ON guideline_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON persona_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON toolbox_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON entity_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON workflow_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON knowledge_base_document TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON knowledge_base_chunk TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON image_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON conversation_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON summarization_memory TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON conversation TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON conversation_recall TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_store TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_file TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_link TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_candidate TO memgate_app
/
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_assessment TO memgate_app
/
GRANT SELECT, INSERT ON mcp_call_log TO memgate_app
/
GRANT SELECT, INSERT ON mcp_call_cited TO memgate_app
/
GRANT SELECT ON memgate_schema TO memgate_app
/
-- Schema version 1 granted FLASHBACK on the memory tables; nothing needs it now. Only a grant that
-- exists is revoked (REVOKE of one the app does not hold is an error), found in
-- USER_TAB_PRIVS_MADE ("the object grants for which the current user is the object owner",
-- Database Reference 26).
BEGIN
  FOR g IN (SELECT table_name FROM user_tab_privs_made
             WHERE grantee = 'MEMGATE_APP' AND privilege = 'FLASHBACK') LOOP
    EXECUTE IMMEDIATE 'REVOKE FLASHBACK ON ' || g.table_name || ' FROM memgate_app';
  END LOOP;
END;
/
