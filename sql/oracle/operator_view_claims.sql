-- Operator only (`memgate ui`): one tenant's claims of every scope, every version, newest first,
-- with the scope each is visible in.
SELECT id, subject, predicate, content, version, valid_from, valid_until, deleted_at, created_at,
       user_id, agent_id, thread_id
FROM entity_memory
WHERE tenant_id = :tenant
ORDER BY created_at DESC, id DESC
