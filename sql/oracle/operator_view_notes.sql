-- Operator only (`memgate ui`): one tenant's remembered notes, preferences and procedures of every
-- scope (the promotion gate's collection), newest first; titles only, with the scope each is visible in.
SELECT id, title, version, valid_from, valid_until, deleted_at, created_at, user_id, agent_id, thread_id
FROM knowledge_base_document
WHERE tenant_id = :tenant AND collection = :collection
ORDER BY created_at DESC, id DESC
