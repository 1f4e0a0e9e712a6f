-- The files at or below :prefix ('/memories/' for all), without their content.
-- substr, not LIKE, so the prefix test is exact whatever characters a path holds.
SELECT id, path, size_chars, size_bytes, version, updated_at
FROM memory_file
WHERE store_id = :store_id AND substr(path, 1, length(:prefix)) = :prefix
ORDER BY path
