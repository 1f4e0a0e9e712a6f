-- The caller's current context window: the latest manifest of its thread (:thread), or with
-- no thread of its window session (:session), written by exactly its user and agent (:user_id,
-- :agent_id: the wall also shows a user the rows of no agent, and a window is its caller's own).
-- last_at is the window's latest event (the manifest itself, a tool round, a clarify answer):
-- the manager ends a window idle past context.window_idle_s.
SELECT m.id, m.content_json, m.created_at,
       (SELECT max(e.created_at) FROM conversation_memory e
        WHERE e.tenant_id = m.tenant_id AND e.window_id = m.id) AS last_at
FROM conversation_memory m
WHERE m.event_type = 'context_manifest' AND m.valid_from <= app_now()
  AND ((:thread IS NOT NULL AND m.thread_id = :thread)
       OR (:thread IS NULL AND m.thread_id IS NULL AND m.session_id = :session))
  AND m.user_id IS :user_id AND m.agent_id IS :agent_id
ORDER BY m.created_at DESC, m.id DESC
LIMIT 1
