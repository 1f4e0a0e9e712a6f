-- Promotion gate: a re-proposed pending candidate takes the new proposal's evidence, as its next version
-- (a reviewer's page showing the older version decides nothing); only while it is still pending.
UPDATE memory_candidate SET evidence_json = :evidence_json, version = version + 1
WHERE id = :id AND version = :version AND decision = 'pending'
