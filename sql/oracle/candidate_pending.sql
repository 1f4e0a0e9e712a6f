-- Promotion gate: the caller's own pending candidates of one kind (VPD keeps other users' out), newest
-- first, so a proposal that restates one attaches to it instead of adding a second pending row.
SELECT id, kind, scope, subject, predicate, content, evidence_json, version, created_by
FROM memory_candidate
WHERE decision = 'pending' AND kind = :kind
ORDER BY created_at DESC, id DESC
