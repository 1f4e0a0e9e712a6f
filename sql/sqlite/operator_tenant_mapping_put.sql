-- Operator-only: add a tenant mapping, or replace the one for the same attribute.
INSERT INTO base_tenant_mapping (kind, issuer, value, tenant_id, user_id, note, created_by)
VALUES (:kind, :issuer, :value, :tenant, :user_id, :note, :created_by)
ON CONFLICT (kind, issuer, value) DO UPDATE SET
    tenant_id = excluded.tenant_id, user_id = excluded.user_id, note = excluded.note,
    created_by = excluded.created_by, created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
