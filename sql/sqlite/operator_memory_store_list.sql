-- Operator-only: one tenant's memory stores of every scope, with their file counts and sizes
-- (`memgate memory ls`; base tables, on an unwalled connection).
SELECT s.id, s.store_key, s.scope, s.user_id, s.agent_id, s.thread_id, s.created_at,
       count(f.id) AS files, coalesce(sum(f.size_chars), 0) AS chars, max(f.updated_at) AS updated_at
FROM base_memory_store s LEFT JOIN base_memory_file f ON f.store_id = s.id AND f.tenant_id = s.tenant_id
WHERE s.tenant_id = :tenant
GROUP BY s.id
ORDER BY s.store_key
