-- Replay: which of the row ids :ids (a JSON list) an erasure of tenant :tenant removed.
SELECT DISTINCT row_key FROM base_erasure_row
WHERE tenant_id = :tenant AND row_key IN (SELECT value FROM json_each(:ids))
