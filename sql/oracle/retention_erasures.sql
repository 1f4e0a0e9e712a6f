-- `memgate forget --list`: the tenant's erasure records, newest first (no content).
SELECT erasure_id, subject_kind, subject, requested_by, status, counts_json, started_at, finished_at
FROM erasure_log
WHERE tenant_id = :tenant
ORDER BY started_at DESC, erasure_id DESC
