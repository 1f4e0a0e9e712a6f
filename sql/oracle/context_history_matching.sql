-- Context assembly, recalled history: turns of the caller's other conversations with exactly its user
-- and agent (:user_id, :agent_id; VPD already keeps every other user's out) that hold a question term
-- (:terms), not of conversation :conversation (the window's own: its tail).
SELECT id, event_type, role, speaker, content, turn_index, session_id, conversation_id, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM conversation_memory c
WHERE event_type = 'turn' AND conversation_id IS NOT NULL
  AND (:conversation IS NULL OR conversation_id <> :conversation)
  AND DECODE(user_id, :user_id, 1, 0) = 1 AND DECODE(agent_id, :agent_id, 1, 0) = 1
  AND EXISTS (SELECT 1 FROM JSON_TABLE(:terms, '$[*]' COLUMNS (term VARCHAR2(400) PATH '$')) t
              WHERE INSTR(LOWER(c.content), t.term) > 0)
ORDER BY valid_from DESC, id
FETCH FIRST :limit ROWS ONLY
