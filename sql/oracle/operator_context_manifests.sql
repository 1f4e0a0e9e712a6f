-- Operator only (`memgate manifest ls`): the latest context manifests of tenant :tenant,
-- newest first. The question is read as CLOB so that a long one comes back whole, as SQLite's
-- json_extract returns it (JSON_VALUE's default VARCHAR2(4000) would give NULL instead).
SELECT id, user_id, agent_id, thread_id, session_id, token_count, created_at,
       JSON_VALUE(content_json, '$.intent') AS intent,
       JSON_VALUE(content_json, '$.request.question' RETURNING CLOB) AS question
FROM conversation_memory
WHERE tenant_id = :tenant AND event_type = 'context_manifest'
ORDER BY created_at DESC, id DESC
