-- The next turn index of a window's conversation: its thread's (:thread), else its server
-- session's (:session) kept with no thread.
-- SESSION is an Oracle reserved word, so the bind is quoted (:"SESSION"); the backend's
-- `session=` key binds to it (python-oracledb matches an unquoted key to the upper-case name).
SELECT COALESCE(MAX(turn_index), 0) + 1 AS turn_index
FROM conversation_memory
WHERE turn_index IS NOT NULL
  AND ((:thread IS NOT NULL AND thread_id = :thread)
       OR (:thread IS NULL AND thread_id IS NULL AND session_id = :"SESSION"))
