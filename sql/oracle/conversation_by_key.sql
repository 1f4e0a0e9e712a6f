-- A conversation by its key: the caller's user and agent exactly (:user_id, :agent_id) and its thread
-- name (:thread_name) or, with no thread, its window session key (:session_key); DECODE treats two
-- NULLs as equal. VPD shows a user the conversations of agents it shares rows with (agent_id NULL);
-- the key is exact, so jane without an agent and jane with one have two conversations.
SELECT id, user_id, agent_id, thread_name, session_id, next_turn, created_at
FROM conversation
WHERE DECODE(user_id, :user_id, 1, 0) = 1 AND DECODE(agent_id, :agent_id, 1, 0) = 1
  AND DECODE(thread_name, :thread_name, 1, 0) = 1 AND DECODE(session_id, :session_key, 1, 0) = 1
