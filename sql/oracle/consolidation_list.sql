-- `memgate consolidate ls` and --apply: the tenant's proposed merges, of one decision or all, oldest first.
SELECT merge_id, user_id, agent_id, thread_id, reason, relation, from_type, from_id, from_version, to_type,
       to_id, to_version, retire_id, score, detail, decision, decided_by, decided_at, created_by, created_at
FROM merge_candidate
WHERE tenant_id = :tenant AND (:decision IS NULL OR decision = :decision)
ORDER BY created_at, merge_id
