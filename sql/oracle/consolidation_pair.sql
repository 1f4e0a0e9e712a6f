-- Consolidation: whether this merge was proposed before (any decision), so a run proposes it once.
SELECT merge_id, decision FROM merge_candidate
WHERE tenant_id = :tenant AND relation = :relation AND from_id = :from_id AND to_id = :to_id
