-- One memory file by its canonical path.
SELECT id, path, content, size_chars, size_bytes, version, updated_at
FROM memory_file
WHERE store_id = :store_id AND path = :path
