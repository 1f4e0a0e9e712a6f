-- The reviewed views execute_query may read, with their columns and declared types.
--
-- This list is the allowlist for both walls: admission (manager/query/admission.py) and the
-- read-only query connection's authorizer (manager/backend/sqlite/query.py). It is also
-- the catalog the tool's description is generated from, so the agent is told exactly
-- what it may query. Every view here is the tenant view from tenant_guard.sql, filtered
-- by app_tenant(); adding a name is a review decision, not a convenience.
--
-- Reviewed in: tenant-shared knowledge.
--   entity_memory, guideline_memory, persona_memory, workflow_memory,
--   summarization_memory, knowledge_base_document (content is a CLOB: shown as <LOB>),
--   knowledge_base_chunk.
-- Left out, on purpose:
--   conversation_memory  turns, tool results and clarify answers of every user and thread
--                        in the tenant; the tenant view is not user- or thread-scoped.
--   memory_store,        the memory tool's files are scoped per agent/user/session store;
--   memory_file          SQL over the tenant view would cross those stores.
--   toolbox_memory       tool definitions and access policies: configuration, not memory,
--                        and it would show the agent tools its roles do not have.
--   mcp_call_log         the audit trail: other callers' arguments and results.
--
-- Runs on a connection with no authorizer and no tenant bound: it reads the schema only.
SELECT v.name AS view_name, c.name AS column_name, c.type AS declared_type
FROM sqlite_master AS v
JOIN pragma_table_xinfo(v.name) AS c
WHERE v.type = 'view'
  AND v.name IN ('entity_memory', 'guideline_memory', 'persona_memory', 'workflow_memory',
                 'summarization_memory', 'knowledge_base_document', 'knowledge_base_chunk')
ORDER BY v.name, c.cid
