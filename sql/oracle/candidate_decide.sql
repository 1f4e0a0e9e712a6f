-- Promotion gate: a review's (or a reassessment's) decision on a candidate, in its transaction.
UPDATE memory_candidate
SET decision = :decision, rule = :rule, record_type = :record_type, record_id = :record_id,
    reassess = :reassess, decided_by = :decided_by, decided_at = :decided_at
WHERE id = :id
