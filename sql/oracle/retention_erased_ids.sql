-- Replay: which of the row ids :ids (a JSON list) an erasure of tenant :tenant removed.
SELECT DISTINCT row_key FROM erasure_row
WHERE tenant_id = :tenant AND row_key IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(256) PATH '$')) j)
