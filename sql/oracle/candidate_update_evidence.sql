-- Promotion gate: a reassessed candidate rests on its evidence as it is now (ids and versions).
UPDATE memory_candidate SET evidence_json = :evidence_json WHERE id = :id
