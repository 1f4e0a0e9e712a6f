-- Template (query_views.py): the reviewed view {table} of a table with no claim key: the
-- caller's rows current at app_now(). Placeholders: {table}, {columns}.
CREATE TEMP VIEW {table} AS
SELECT {columns}
FROM main.{table}
WHERE valid_from <= app_now() AND (valid_until IS NULL OR valid_until > app_now())
  AND (deleted_at IS NULL OR deleted_at > app_now());
