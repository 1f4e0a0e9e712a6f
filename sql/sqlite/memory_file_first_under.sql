-- Whether any file lies below :prefix (which ends in '/'): directories exist only through their files.
SELECT path
FROM memory_file
WHERE store_id = :store_id AND substr(path, 1, length(:prefix)) = :prefix
LIMIT 1
