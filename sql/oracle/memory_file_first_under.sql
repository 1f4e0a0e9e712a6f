-- Any one file below a directory path (is the directory there?).
SELECT path
FROM memory_file
WHERE store_id = :store_id AND SUBSTR(path, 1, LENGTH(:prefix)) = :prefix
FETCH FIRST 1 ROW ONLY
