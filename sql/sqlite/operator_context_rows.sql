-- Replay: which of the row ids :ids (a JSON list) a window read still exist for tenant
-- :tenant, whoever may see them, to tell a deleted dependency from one the caller may no
-- longer see. Operator session only.
SELECT 'entity_memory' AS table_name, id, deleted_at FROM base_entity_memory
WHERE tenant_id = :tenant AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'workflow_memory', id, deleted_at FROM base_workflow_memory
WHERE tenant_id = :tenant AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'knowledge_base_chunk', id, deleted_at FROM base_knowledge_base_chunk
WHERE tenant_id = :tenant AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'summarization_memory', id, deleted_at FROM base_summarization_memory
WHERE tenant_id = :tenant AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'conversation_memory', id, deleted_at FROM base_conversation_memory
WHERE tenant_id = :tenant AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'guideline_memory', id, deleted_at FROM base_guideline_memory
WHERE tenant_id = :tenant AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'persona_memory', id, deleted_at FROM base_persona_memory
WHERE tenant_id = :tenant AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'toolbox_memory', id, deleted_at FROM base_toolbox_memory
WHERE tenant_id = :tenant AND id IN (SELECT value FROM json_each(:ids))
