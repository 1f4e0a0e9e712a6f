-- Whether any file lies below :prefix (which ends in '/'): directories exist only through their files.
SELECT path
FROM memory_file
WHERE store_id = :store_id AND SUBSTR(path, 1, LENGTH(:prefix)) = :prefix
FETCH FIRST 1 ROW ONLY
