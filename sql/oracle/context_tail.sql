-- Context assembly, the volatile tail: the window's most recent turns by turn index (and the
-- clarify answers among them): the thread's when :thread is set, else the turns of
-- server session :session kept with no thread.
-- SESSION is an Oracle reserved word, so the bind is quoted (:"SESSION"); the backend's
-- `session=` key binds to it (python-oracledb matches an unquoted key to the upper-case name).
SELECT id, event_type, role, content, turn_index, session_id, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM conversation_memory
WHERE event_type IN ('turn', 'clarify_answer') AND turn_index IS NOT NULL
  AND ((:thread IS NOT NULL AND thread_id = :thread)
       OR (:thread IS NULL AND thread_id IS NULL AND :"SESSION" IS NOT NULL AND session_id = :"SESSION"))
ORDER BY turn_index DESC, id
FETCH FIRST :limit ROWS ONLY
