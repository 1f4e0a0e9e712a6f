-- Erasure: the record of one `memgate forget` (who asked, when, whom; no content), written before
-- the first row is erased. Operator (owner) only.
INSERT INTO erasure_log (erasure_id, tenant_id, subject_kind, subject, requested_by, status, started_at)
VALUES (:erasure, :tenant, :kind, :subject, :requested_by, 'running', :now)
