-- `memgate export --list`: the tenant's export and import records, newest first (no content).
SELECT record_id, action, scope_kind, subject, requested_by, counts_json, bundle_sha256, source_tenant, recorded_at
FROM base_portability_log
WHERE tenant_id = :tenant
ORDER BY recorded_at DESC, record_id DESC
