-- Template (query_views.py): the reviewed view {table} of a table with no claim key: the
-- caller's rows current at app_now(), among those written by then (created_at), so a call with
-- as_of reads what the database held at that moment. Placeholders: {table}, {columns},
-- {written} (created_at <= app_now(), or 1 for a table without created_at).
CREATE TEMP VIEW {table} AS
SELECT {columns}
FROM main.{table}
WHERE {written} AND valid_from <= app_now() AND (valid_until IS NULL OR valid_until > app_now())
  AND (deleted_at IS NULL OR deleted_at > app_now());
