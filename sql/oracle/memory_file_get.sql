-- One memory file by path. An empty file's content is NULL here (Oracle stores '' as NULL); the
-- backend reads it back as ''.
SELECT id, path, content, size_chars, size_bytes, version, updated_at
FROM memory_file
WHERE store_id = :store_id AND path = :path
