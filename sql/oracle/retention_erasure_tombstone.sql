-- Erasure: the keys (:keys, a JSON list) one batch removed from :table_name, in the batch's
-- transaction: a resumed run finds what referenced them, and replay can say a source was erased.
INSERT INTO erasure_row (erasure_id, tenant_id, table_name, row_key)
SELECT :erasure, :tenant, :table_name, j.k
FROM JSON_TABLE(:keys, '$[*]' COLUMNS (k VARCHAR2(256) PATH '$')) j
WHERE NOT EXISTS (SELECT 1 FROM erasure_row r
                  WHERE r.erasure_id = :erasure AND r.table_name = :table_name AND r.row_key = j.k)
