-- The files at or below :prefix ('/memories/' for all), without their content.
-- SUBSTR, not LIKE, so the prefix test is exact whatever characters a path holds.
SELECT id, path, size_chars, size_bytes, version, updated_at
FROM memory_file
WHERE store_id = :store_id AND SUBSTR(path, 1, LENGTH(:prefix)) = :prefix
ORDER BY path
