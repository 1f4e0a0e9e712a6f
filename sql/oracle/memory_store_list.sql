-- The bound tenant's memory stores with their file counts and sizes (`memgate memory ls`).
-- Under MEMGATE_APP, VPD shows only the stores of the bound scope; the operator CLI runs this as
-- the owner with a tenant bound, which sees every store of that tenant (install/040).
SELECT s.id, s.store_key, s.scope, s.created_at,
       COUNT(f.id) AS files, COALESCE(SUM(f.size_chars), 0) AS chars, MAX(f.updated_at) AS updated_at
FROM memory_store s LEFT JOIN memory_file f ON f.store_id = s.id
GROUP BY s.id, s.store_key, s.scope, s.created_at
ORDER BY s.store_key
