-- Operator only (`memgate candidates show`): a candidate's typed assessments, in the order made.
SELECT id, candidate_id, question, question_version, policy_version, assessor, probability, threshold, passed,
       latency_ms, note, created_by, created_at
FROM memory_assessment
WHERE tenant_id = :tenant AND candidate_id = :candidate_id
ORDER BY created_at, id
