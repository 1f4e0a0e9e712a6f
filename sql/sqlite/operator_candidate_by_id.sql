-- Operator-only, base tables on an unwalled connection (`memgate candidates show|approve|reject`): one candidate of a tenant, any scope.
SELECT id, tenant_id, user_id, agent_id, thread_id, kind, scope, subject, predicate, content, content_hash,
       evidence_json, decision, rule, record_type, record_id, assessor, policy_version, reassess, decided_by,
       decided_at, version, created_by, created_at
FROM base_memory_candidate
WHERE tenant_id = :tenant AND id = :id
