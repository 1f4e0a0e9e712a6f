-- Operator-only: every tenant mapping, optionally for one tenant.
SELECT kind, issuer, value, tenant_id, user_id, note, created_by, created_at
FROM base_tenant_mapping
WHERE (:tenant IS NULL OR tenant_id = :tenant)
ORDER BY tenant_id, kind, issuer, value
