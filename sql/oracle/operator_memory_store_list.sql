-- Operator only (`memgate memory ls`): a tenant's memory stores with their file counts and sizes.
SELECT s.id, s.store_key, s.scope, s.user_id, s.agent_id, s.thread_id, s.created_at,
       COUNT(f.id) AS files, COALESCE(SUM(f.size_chars), 0) AS chars, MAX(f.updated_at) AS updated_at
FROM memory_store s LEFT JOIN memory_file f ON f.store_id = s.id AND f.tenant_id = s.tenant_id
WHERE s.tenant_id = :tenant
GROUP BY s.id, s.store_key, s.scope, s.user_id, s.agent_id, s.thread_id, s.created_at
ORDER BY s.store_key
