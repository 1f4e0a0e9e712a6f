-- Promotion gate: the newest promoted or approved candidate with the same normalized content,
-- kind and scope, whose record the caller may still see (the caller checks the record). The unary +
-- keeps the planner on the content hash's index (memory_candidate_hash_ix): the decision's and the
-- record's indexes would walk every decided candidate of the tenant.
SELECT id, user_id, agent_id, thread_id, kind, scope, subject, predicate, content, content_hash, evidence_json,
       decision, rule, record_type, record_id, assessor, policy_version, reassess, decided_by, decided_at,
       version, created_by, created_at
FROM memory_candidate
WHERE content_hash = :content_hash AND kind = :kind AND scope = :scope
  AND +decision IN ('promoted', 'approved') AND +record_id IS NOT NULL AND reassess = 0
ORDER BY created_at DESC, id DESC
