-- The caller's current context window: the latest manifest of its thread (:thread), or with
-- no thread of its window session (:session), written by exactly its user and agent (:user_id,
-- :agent_id; DECODE treats two NULLs as equal): VPD also shows a user the rows of no agent, and a
-- window is its caller's own. The session's
-- evaluation time is MEMGATE_CTX's NOW (SQLite's app_now()), set with the identity.
-- last_at is the window's latest event (the manifest itself, a tool round, a clarify answer):
-- the manager ends a window idle past context.window_idle_s.
-- SESSION is an Oracle reserved word, so the bind is quoted (:"SESSION"); the backend's
-- `session=` key binds to it (python-oracledb matches an unquoted key to the upper-case name).
SELECT m.id, m.content_json, m.created_at,
       (SELECT MAX(e.created_at) FROM conversation_memory e
        WHERE e.tenant_id = m.tenant_id AND e.window_id = m.id) AS last_at
FROM conversation_memory m
WHERE m.event_type = 'context_manifest' AND m.valid_from <= SYS_CONTEXT('MEMGATE_CTX', 'NOW')
  AND ((:thread IS NOT NULL AND m.thread_id = :thread)
       OR (:thread IS NULL AND m.thread_id IS NULL AND m.session_id = :"SESSION"))
  AND DECODE(m.user_id, :user_id, 1, 0) = 1 AND DECODE(m.agent_id, :agent_id, 1, 0) = 1
ORDER BY m.created_at DESC, m.id DESC
FETCH FIRST 1 ROWS ONLY
