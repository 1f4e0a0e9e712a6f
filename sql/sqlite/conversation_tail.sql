-- The volatile tail: conversation :conversation's most recent turns by turn index, and the clarify
-- answers among them (those carry their thread too, so the wall shows them only in that thread).
SELECT id, event_type, role, speaker, content, turn_index, session_id, conversation_id, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM conversation_memory
WHERE conversation_id = :conversation AND event_type IN ('turn', 'clarify_answer') AND turn_index IS NOT NULL
ORDER BY turn_index DESC, id
LIMIT :limit
