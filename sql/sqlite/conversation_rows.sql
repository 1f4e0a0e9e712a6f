-- Conversations by id (:ids, a JSON list) the caller may see: their keys, for recall's labels.
SELECT id, user_id, agent_id, thread_name, session_id, next_turn, created_at
FROM conversation
WHERE id IN (SELECT value FROM json_each(:ids))
