-- The memory view (show_memory): the assessments of the candidates :ids (a JSON list) VPD shows,
-- each candidate's in the order made: what a reviewer weighs beside the evidence.
SELECT candidate_id, question, probability, threshold, passed, assessor, note
FROM memory_assessment
WHERE candidate_id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
ORDER BY candidate_id, created_at, id
