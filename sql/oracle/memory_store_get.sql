-- A memory store by key.
SELECT id, store_key, scope, user_id, agent_id, thread_id, created_by, created_at
FROM memory_store
WHERE store_key = :store_key
