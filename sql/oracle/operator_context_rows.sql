-- Operator only (replay): which of the row ids :ids (a JSON list) a window read still exist for
-- tenant :tenant, whoever may see them, to tell a deleted dependency from one the caller may no
-- longer see. Runs as the schema owner (no VPD predicate, install/040).
SELECT 'entity_memory' AS table_name, id, deleted_at FROM entity_memory
WHERE tenant_id = :tenant AND id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
UNION ALL
SELECT 'workflow_memory', id, deleted_at FROM workflow_memory
WHERE tenant_id = :tenant AND id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
UNION ALL
SELECT 'knowledge_base_chunk', id, deleted_at FROM knowledge_base_chunk
WHERE tenant_id = :tenant AND id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
UNION ALL
SELECT 'summarization_memory', id, deleted_at FROM summarization_memory
WHERE tenant_id = :tenant AND id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
UNION ALL
SELECT 'conversation_memory', id, deleted_at FROM conversation_memory
WHERE tenant_id = :tenant AND id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
UNION ALL
SELECT 'guideline_memory', id, deleted_at FROM guideline_memory
WHERE tenant_id = :tenant AND id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
UNION ALL
SELECT 'persona_memory', id, deleted_at FROM persona_memory
WHERE tenant_id = :tenant AND id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
UNION ALL
SELECT 'toolbox_memory', id, deleted_at FROM toolbox_memory
WHERE tenant_id = :tenant AND id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
