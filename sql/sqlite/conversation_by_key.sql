-- A conversation by its key: the caller's user and agent exactly (:user_id, :agent_id; NULL matches
-- NULL) and its thread name (:thread_name) or, with no thread, its window session key (:session_key).
-- The wall shows a user the conversations of agents it shares rows with (agent_id NULL); the key
-- is exact, so jane without an agent and jane with one have two conversations. The ifnull forms
-- are the unique index's own expressions (conversation_key_uq), so the lookup is one index probe.
SELECT id, user_id, agent_id, thread_name, session_id, next_turn, created_at
FROM conversation
WHERE ifnull(user_id, '') = ifnull(:user_id, '') AND ifnull(agent_id, '') = ifnull(:agent_id, '')
  AND ifnull(thread_name, '') = ifnull(:thread_name, '') AND ifnull(session_id, '') = ifnull(:session_key, '')
