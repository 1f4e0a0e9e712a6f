-- The files below a directory path, in path order.
SELECT id, path, size_chars, size_bytes, version, updated_at
FROM memory_file
WHERE store_id = :store_id AND SUBSTR(path, 1, LENGTH(:prefix)) = :prefix
ORDER BY path
