-- Promotion gate: a candidate's decision, version and proposer, read again inside the deciding transaction and
-- locked until it ends, so a decision bound to a version it no longer has writes nothing.
SELECT id, decision, version, created_by FROM memory_candidate WHERE id = :id FOR UPDATE
