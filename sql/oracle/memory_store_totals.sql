-- What the store's caps count: its files and their characters.
SELECT COUNT(*) AS files, COALESCE(SUM(size_chars), 0) AS chars
FROM memory_file
WHERE store_id = :store_id
