-- Operator only (the HTTP tenant gate, before any tenant is known): the mappings a verified
-- token's attributes match.
SELECT kind, issuer, value, tenant_id, user_id
FROM tenant_mapping
WHERE (kind = 'iss_sub' AND issuer = :iss AND value = :sub)
   OR (kind = 'client_id' AND value = :client_id)
   OR (kind = 'hd' AND value = :hd)
   OR (kind = 'email_domain' AND value = :email_domain)
