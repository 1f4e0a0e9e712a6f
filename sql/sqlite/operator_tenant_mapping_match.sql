-- Operator-only: the tenant mappings a verified token's attributes match (any NULL matches nothing).
SELECT kind, issuer, value, tenant_id, user_id
FROM base_tenant_mapping
WHERE (kind = 'iss_sub' AND issuer = :iss AND value = :sub)
   OR (kind = 'client_id' AND value = :client_id)
   OR (kind = 'hd' AND value = :hd)
   OR (kind = 'email_domain' AND value = :email_domain)
