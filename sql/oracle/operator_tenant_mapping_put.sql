-- Operator only (`memgate tenants map`): add a mapping or replace the one with the same key.
-- MERGE is SQLite's INSERT ... ON CONFLICT DO UPDATE; issuer compares NULL-safely (DECODE).
MERGE INTO tenant_mapping m
USING (SELECT :kind AS kind, :issuer AS issuer, :value AS value FROM dual) k
ON (m.kind = k.kind AND DECODE(m.issuer, k.issuer, 1, 0) = 1 AND m.value = k.value)
WHEN MATCHED THEN UPDATE SET
    m.tenant_id = :tenant, m.user_id = :user_id, m.note = :note, m.created_by = :created_by,
    m.created_at = TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"')
WHEN NOT MATCHED THEN INSERT (kind, issuer, value, tenant_id, user_id, note, created_by)
    VALUES (k.kind, k.issuer, k.value, :tenant, :user_id, :note, :created_by)
