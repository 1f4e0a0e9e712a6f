-- The bound tenant's memory stores with their file counts and sizes (`memgate memory ls`).
SELECT s.id, s.store_key, s.scope, s.created_at,
       count(f.id) AS files, coalesce(sum(f.size_chars), 0) AS chars, max(f.updated_at) AS updated_at
FROM memory_store s LEFT JOIN memory_file f ON f.store_id = s.id
GROUP BY s.id, s.store_key, s.scope, s.created_at
ORDER BY s.store_key
