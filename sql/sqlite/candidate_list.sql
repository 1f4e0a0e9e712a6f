-- The memory view (show_memory) and a host's review: the caller's own candidates (the wall keeps
-- other users' out), newest first, or the one named :id.
SELECT id, user_id, agent_id, thread_id, kind, scope, subject, predicate, content, evidence_json, decision, rule,
       record_type, record_id, assessor, policy_version, reassess, decided_by, decided_at, version, created_at
FROM memory_candidate
WHERE (:id IS NULL OR id = :id)
ORDER BY created_at DESC, id DESC
