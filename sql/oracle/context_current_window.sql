-- The caller's current context window: the latest manifest of its thread (:thread), or with
-- no thread of its server session (:session). VPD keeps other users' rows out. The session's
-- evaluation time is MEMGATE_CTX's NOW (SQLite's app_now()), set with the identity.
-- SESSION is an Oracle reserved word, so the bind is quoted (:"SESSION"); the backend's
-- `session=` key binds to it (python-oracledb matches an unquoted key to the upper-case name).
SELECT id, content_json, created_at
FROM conversation_memory
WHERE event_type = 'context_manifest' AND valid_from <= SYS_CONTEXT('MEMGATE_CTX', 'NOW')
  AND ((:thread IS NOT NULL AND thread_id = :thread)
       OR (:thread IS NULL AND thread_id IS NULL AND session_id = :"SESSION"))
ORDER BY created_at DESC, id DESC
FETCH FIRST 1 ROWS ONLY
