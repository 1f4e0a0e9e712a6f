-- Operator only (`memgate tenants ls`): the mappings, of one tenant or all.
SELECT kind, issuer, value, tenant_id, user_id, note, created_by, created_at
FROM tenant_mapping
WHERE (:tenant IS NULL OR tenant_id = :tenant)
ORDER BY tenant_id, kind, issuer NULLS FIRST, value
