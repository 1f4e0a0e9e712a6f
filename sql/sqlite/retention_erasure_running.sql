-- Erasure (manager/retention/erase.py): the unfinished erasure of one subject of tenant :tenant, if a
-- run was interrupted; the next run for the same subject finishes it. Operator session only.
SELECT erasure_id, tenant_id, subject_kind, subject, requested_by, status, counts_json, started_at
FROM base_erasure_log
WHERE tenant_id = :tenant AND subject_kind = :kind AND subject = :subject AND status = 'running'
ORDER BY started_at
LIMIT 1
