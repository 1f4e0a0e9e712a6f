-- The latest context manifests of tenant :tenant, newest first (`memgate manifest ls`).
-- Operator session only.
SELECT id, user_id, agent_id, thread_id, session_id, token_count, created_at,
       json_extract(content_json, '$.intent') AS intent,
       json_extract(content_json, '$.request.question') AS question
FROM base_conversation_memory
WHERE tenant_id = :tenant AND event_type = 'context_manifest'
ORDER BY created_at DESC, id DESC
