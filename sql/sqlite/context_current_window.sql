-- The caller's current context window: the latest manifest of its thread (:thread), or with
-- no thread of its server session (:session). The wall keeps other users' rows out.
SELECT id, content_json, created_at
FROM conversation_memory
WHERE event_type = 'context_manifest' AND valid_from <= app_now()
  AND ((:thread IS NOT NULL AND thread_id = :thread)
       OR (:thread IS NULL AND thread_id IS NULL AND session_id = :session))
ORDER BY created_at DESC, id DESC
LIMIT 1
