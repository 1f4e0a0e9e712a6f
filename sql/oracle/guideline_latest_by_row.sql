-- The newest version of one guideline by its row id (the caller's scope; any lifecycle state).
SELECT id, row_id, guideline_key, content, content_json, version, valid_from, valid_until, deleted_at,
       user_id, agent_id, thread_id
FROM guideline_memory
WHERE row_id = :row_id
ORDER BY version DESC
FETCH FIRST 1 ROWS ONLY
