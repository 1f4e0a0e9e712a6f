-- Promotion gate: one candidate the caller can see (the wall cuts it to the proposer's scope).
SELECT id, user_id, agent_id, thread_id, kind, scope, subject, predicate, content, content_hash, evidence_json,
       decision, rule, record_type, record_id, assessor, policy_version, reassess, decided_by, decided_at,
       version, created_by, created_at
FROM memory_candidate
WHERE id = :id
