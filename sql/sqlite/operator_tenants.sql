-- Operator-only: tenants that have any toolbox row, guideline or claim.
SELECT tenant_id FROM base_toolbox_memory
UNION SELECT tenant_id FROM base_guideline_memory
UNION SELECT tenant_id FROM base_entity_memory
ORDER BY tenant_id
