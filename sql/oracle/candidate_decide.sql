-- Promotion gate: a review's (or a reassessment's) decision on a candidate, in its transaction. Every
-- decision is the candidate's next version, so a page bound to the version it showed cannot decide twice.
UPDATE memory_candidate
SET decision = :decision, rule = :rule, record_type = :record_type, record_id = :record_id,
    reassess = :reassess, decided_by = :decided_by, decided_at = :decided_at, version = version + 1
WHERE id = :id AND version = :version
