-- Operator-only, base tables on an unwalled connection (`memgate candidates ls`): one tenant's candidates of every scope, newest first;
-- :decision narrows to one decision, :reassess = 1 to those marked for reassessment.
SELECT id, tenant_id, user_id, agent_id, thread_id, kind, scope, subject, predicate, content, content_hash,
       evidence_json, decision, rule, record_type, record_id, assessor, policy_version, reassess, decided_by,
       decided_at, version, created_by, created_at
FROM base_memory_candidate
WHERE tenant_id = :tenant
  AND (:decision IS NULL OR decision = :decision)
  AND (:reassess IS NULL OR reassess = :reassess)
ORDER BY created_at DESC, id DESC
