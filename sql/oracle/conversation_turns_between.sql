-- The turns of conversation :conversation numbered :first to :last, in order: a recalled turn's
-- neighbours (recall.py) and the turns expand brings back around a turn or under a summary.
SELECT id, event_type, role, speaker, content, turn_index, session_id, conversation_id, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM conversation_memory
WHERE conversation_id = :conversation AND event_type = 'turn' AND turn_index BETWEEN :first AND :last
ORDER BY turn_index
