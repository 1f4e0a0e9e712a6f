-- Operator-only: tenants that have any toolbox row, guideline or claim.
-- Run by: MEMGATE_OWNER with no identity bound (install/040).
SELECT tenant_id FROM toolbox_memory
UNION SELECT tenant_id FROM guideline_memory
UNION SELECT tenant_id FROM entity_memory
ORDER BY tenant_id
