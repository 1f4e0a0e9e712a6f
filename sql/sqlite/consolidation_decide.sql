-- Consolidation: a review's decision on a merge, or --apply's outcome; only from the decision the
-- caller read (:was), so two reviewers cannot both decide it.
UPDATE base_merge_candidate SET decision = :decision, decided_by = :decided_by, decided_at = :now
WHERE tenant_id = :tenant AND merge_id = :merge AND decision = :was
