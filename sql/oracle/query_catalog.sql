-- The reviewed views (install/050) as the query account sees them through its READ grants, with
-- their columns and declared types; view names are the logical ones (qv_entity_memory ->
-- entity_memory), which the query account's synonyms (install/015) resolve.
SELECT LOWER(SUBSTR(table_name, 4)) AS view_name, LOWER(column_name) AS column_name,
       data_type AS declared_type
FROM all_tab_columns
WHERE owner = 'MEMGATE_OWNER' AND table_name LIKE 'QV\_%' ESCAPE '\'
ORDER BY table_name, column_id
