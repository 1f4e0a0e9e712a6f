-- Context assembly, recalled history: turns of the caller's other conversations with exactly its user
-- and agent (:user_id, :agent_id; the wall already keeps every other user's out) that hold a
-- question term (:terms), not of conversation :conversation (the window's own: its tail).
SELECT id, event_type, role, speaker, content, turn_index, session_id, conversation_id, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM conversation_memory AS c
WHERE event_type = 'turn' AND conversation_id IS NOT NULL
  AND (:conversation IS NULL OR conversation_id <> :conversation)
  AND ifnull(user_id, '') = ifnull(:user_id, '') AND ifnull(agent_id, '') = ifnull(:agent_id, '')
  AND EXISTS (SELECT 1 FROM json_each(:terms) AS t WHERE instr(lower(c.content), t.value) > 0)
ORDER BY valid_from DESC, id
LIMIT :limit
