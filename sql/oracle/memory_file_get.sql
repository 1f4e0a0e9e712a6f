-- One memory file by its canonical path. content is a CLOB (fetch_lobs=False) and NULL for an
-- empty file (Oracle stores '' as NULL): the backend returns ''.
SELECT id, path, content, size_chars, size_bytes, version, updated_at
FROM memory_file
WHERE store_id = :store_id AND path = :path
