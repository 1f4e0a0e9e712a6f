-- Operator only (`memgate doctor`): every tenant with toolbox rows, guidelines or claims.
SELECT tenant_id FROM toolbox_memory
UNION SELECT tenant_id FROM guideline_memory
UNION SELECT tenant_id FROM entity_memory
ORDER BY tenant_id
