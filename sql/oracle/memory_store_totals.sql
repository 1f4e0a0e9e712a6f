-- How many files a store holds and their size (the memory tool's caps).
SELECT COUNT(*) AS files, COALESCE(SUM(size_chars), 0) AS chars
FROM memory_file
WHERE store_id = :store_id
