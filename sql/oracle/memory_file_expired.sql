-- A store's files last written before :cutoff.
SELECT id, path, version, updated_at
FROM memory_file
WHERE store_id = :store_id AND updated_at < :cutoff
ORDER BY path
