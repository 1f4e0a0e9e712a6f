-- Template (query_views.py): a versioned table's reviewed views. Placeholders: {table},
-- {columns}, {claim} (the claim key columns; a claim's versions may span scopes).
--
-- {table}_history labels every version of the caller's scope as of app_now(), by the rules
-- of label_versions (manager/claims/entities.py), in the order lookup_entity reads them
-- (most specific scope first, newest version first, then id):
--   deleted     deleted_at <= now
--   pending     valid_from > now
--   superseded  closed (valid_until <= now) and a newer version exists, or open but a
--               version ahead of it in that order is open too
--   expired     closed, and it is the claim's newest version
--   current     the first open version: the one in force for the caller
-- {table} is the current rows only: one per claim.
CREATE TEMP VIEW {table}_history AS
SELECT {columns},
       CASE
           WHEN deleted_at IS NOT NULL AND deleted_at <= app_now() THEN 'deleted'
           WHEN valid_from > app_now() THEN 'pending'
           WHEN valid_until IS NOT NULL AND valid_until <= app_now()
               THEN CASE WHEN version < newest_version THEN 'superseded' ELSE 'expired' END
           WHEN open_before = 0 THEN 'current'
           ELSE 'superseded'
       END AS status
FROM (SELECT *,
             max(version) OVER (PARTITION BY {claim}) AS newest_version,
             coalesce(sum(is_open) OVER (PARTITION BY {claim}
                                         ORDER BY specificity DESC, version DESC, id
                                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS open_before
      -- The window functions read plain columns: SQLite re-checks a window's arguments with
      -- no view as their source, so app_now() must not appear inside one.
      FROM (SELECT *,
                   (valid_from <= app_now() AND (valid_until IS NULL OR valid_until > app_now())
                    AND (deleted_at IS NULL OR deleted_at > app_now())) AS is_open,
                   (user_id IS NOT NULL) + (agent_id IS NOT NULL) + (thread_id IS NOT NULL) AS specificity
            FROM main.{table}));

CREATE TEMP VIEW {table} AS
SELECT {columns} FROM temp.{table}_history WHERE status = 'current';
