-- Files not written since :cutoff (`memgate memory expire --days N`). ISO-8601 text compares in
-- time order under BINARY comparison (install/020).
SELECT id, path, version, updated_at
FROM memory_file
WHERE store_id = :store_id AND updated_at < :cutoff
ORDER BY path
