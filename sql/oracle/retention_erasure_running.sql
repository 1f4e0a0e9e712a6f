-- Erasure (manager/retention/erase.py): the unfinished erasure of one subject of tenant :tenant, if a
-- run was interrupted; the next run for the same subject finishes it. Operator (owner) only.
SELECT erasure_id, tenant_id, subject_kind, subject, requested_by, status, counts_json, started_at
FROM erasure_log
WHERE tenant_id = :tenant AND subject_kind = :kind AND subject = :subject AND status = 'running'
ORDER BY started_at
FETCH FIRST 1 ROWS ONLY
