-- Promotion gate: the promoted candidates whose record is one of :record_ids (a JSON list) are
-- to be reassessed: a record they rest on was corrected or deleted.
UPDATE memory_candidate
SET reassess = 1
WHERE decision IN ('promoted', 'approved') AND reassess = 0
  AND record_id IN (SELECT j.value FROM JSON_TABLE(:record_ids, '$[*]' COLUMNS (value VARCHAR2(64) PATH '$')) j)
