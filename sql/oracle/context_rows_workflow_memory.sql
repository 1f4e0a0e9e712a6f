-- Context assembly and replay: rows of workflow_memory by id (:ids, a JSON list), whatever their
-- lifecycle state: a manifest names row versions, and corrections keep every version.
SELECT * FROM workflow_memory WHERE id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
