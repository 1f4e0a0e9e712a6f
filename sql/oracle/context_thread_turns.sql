-- Compaction: the turns (and clarify answers) of the caller's conversation after turn :after, in
-- order: the thread's when :thread is set, else server session :session's kept with no thread.
-- SESSION is an Oracle reserved word, so the bind is quoted (as in context_tail.sql).
SELECT id, role, content, turn_index, version, token_count, created_at
FROM conversation_memory
WHERE event_type IN ('turn', 'clarify_answer') AND turn_index IS NOT NULL AND turn_index > :after
  AND ((:thread IS NOT NULL AND thread_id = :thread)
       OR (:thread IS NULL AND thread_id IS NULL AND :"SESSION" IS NOT NULL AND session_id = :"SESSION"))
ORDER BY turn_index
