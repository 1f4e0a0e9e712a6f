-- Operator-only: remove one tenant mapping; returns the row it removed, if any.
DELETE FROM base_tenant_mapping WHERE kind = :kind AND issuer = :issuer AND value = :value
RETURNING kind, issuer, value, tenant_id, user_id
