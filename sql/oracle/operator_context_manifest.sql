-- Operator only (`memgate manifest show|replay`): a context manifest of tenant :tenant by id,
-- with the scope it was assembled in. Runs as the schema owner (no VPD predicate, install/040).
SELECT id, tenant_id, user_id, agent_id, thread_id, session_id, content_json, token_count, created_at
FROM conversation_memory
WHERE tenant_id = :tenant AND id = :id AND event_type = 'context_manifest'
