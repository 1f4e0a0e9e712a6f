-- Context assembly and replay: rows of summarization_memory by id (:ids, a JSON list), whatever their
-- lifecycle state: a manifest names row versions, and corrections keep every version. CROSS JOIN keeps
-- the list as the outer loop (each row found by its key).
SELECT m.* FROM json_each(:ids) AS j CROSS JOIN summarization_memory AS m WHERE m.id = j.value
