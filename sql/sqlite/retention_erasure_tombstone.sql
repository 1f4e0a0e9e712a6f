-- Erasure: the keys (:keys, a JSON list) one batch removed from :table_name, in the batch's
-- transaction: a resumed run finds what referenced them, and replay can say a source was erased.
INSERT OR IGNORE INTO base_erasure_row (erasure_id, tenant_id, table_name, row_key)
SELECT :erasure, :tenant, :table_name, value FROM json_each(:keys)
