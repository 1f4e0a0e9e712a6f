-- The reviewed views execute_query may read (issue 4), with their columns and declared types.
-- The Oracle twin of sql/sqlite/query_views.sql: the allowlist for admission and the catalog
-- the tool's description is generated from. Names are the logical names memgate_query queries by
-- (its synonyms, install/055); the views behind them are memgate_owner.qv_<name>.
-- Differences from SQLite, both review decisions to confirm:
--   conversation_memory  included: VPD scopes it by user, agent and thread here (install/050);
--   <name>_history       the history views with their status column (install/050).
-- Run by: MEMGATE_QUERY (ALL_TAB_COLUMNS shows it exactly the views it has READ on) or the owner.
SELECT LOWER(SUBSTR(c.table_name, 4)) AS view_name, LOWER(c.column_name) AS column_name,
       c.data_type AS declared_type
FROM all_tab_columns c
WHERE c.owner = 'MEMGATE_OWNER'
  AND c.table_name IN ('QV_ENTITY_MEMORY', 'QV_GUIDELINE_MEMORY', 'QV_PERSONA_MEMORY',
                       'QV_WORKFLOW_MEMORY', 'QV_SUMMARIZATION_MEMORY',
                       'QV_KNOWLEDGE_BASE_DOCUMENT', 'QV_KNOWLEDGE_BASE_CHUNK',
                       'QV_CONVERSATION_MEMORY',
                       'QV_ENTITY_MEMORY_HISTORY', 'QV_GUIDELINE_MEMORY_HISTORY',
                       'QV_PERSONA_MEMORY_HISTORY', 'QV_WORKFLOW_MEMORY_HISTORY',
                       'QV_SUMMARIZATION_MEMORY_HISTORY', 'QV_KNOWLEDGE_BASE_DOCUMENT_HISTORY',
                       'QV_KNOWLEDGE_BASE_CHUNK_HISTORY', 'QV_CONVERSATION_MEMORY_HISTORY')
ORDER BY c.table_name, c.column_id
