-- The reviewed views as the query connection built them (TEMP views), with their columns
-- and declared types. Runs with the authorizer lifted: it reads the schema only.
SELECT v.name AS view_name, c.name AS column_name, c.type AS declared_type
FROM sqlite_temp_master AS v
JOIN pragma_table_xinfo(v.name, 'temp') AS c
WHERE v.type = 'view'
ORDER BY v.name, c.cid
