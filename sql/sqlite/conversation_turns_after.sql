-- Compaction: the turns of conversation :conversation after turn :after, in order (raw turns only:
-- a summary is never a summariser's input). Clarify answers are thread events, not the
-- conversation's record, so they are left out.
SELECT id, role, speaker, content, turn_index, version, token_count, valid_from, created_at
FROM conversation_memory
WHERE conversation_id = :conversation AND event_type = 'turn' AND turn_index IS NOT NULL AND turn_index > :after
ORDER BY turn_index
