-- Context assembly and replay: rows of conversation_memory by id (:ids, a JSON list), whatever their
-- lifecycle state: a manifest names row versions, and corrections keep every version. CROSS JOIN keeps
-- the list as the outer loop, so each row is found by its key (the planner would otherwise walk the
-- tenant's index and test every row of a long conversation against the list).
SELECT c.* FROM json_each(:ids) AS j CROSS JOIN conversation_memory AS c WHERE c.id = j.value
