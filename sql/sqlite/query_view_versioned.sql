-- Template (query_views.py): a versioned table's reviewed views. Placeholders: {table},
-- {columns}, {same_claim} (o's claim key equals t's: a claim's versions may span scopes),
-- {t_written} and {o_written} (t's or o's created_at <= app_now(); 1 for a table without it).
--
-- {table}_history labels every version of the caller's scope written by app_now() (created_at:
-- with as_of, a version written later did not exist yet, as in Flashback) as of app_now(), by the rules
-- of label_versions (manager/claims/entities.py), in the order lookup_entity reads them
-- (most specific scope first, newest version first, then id):
--   deleted     deleted_at <= now
--   pending     valid_from > now
--   superseded  closed (valid_until <= now) and a newer version exists, or open while a
--               version ahead of it in that order is open too
--   expired     closed, and it is the claim's newest version
--   current     open, and no version ahead of it is: the one in force for the caller
-- {table} is the current rows only: one per claim. Both read main.{table}, the walled view,
-- and find a claim's other versions by an index probe on its key, not a sort of every row.
CREATE TEMP VIEW {table}_history AS
SELECT {columns},
       CASE
           WHEN t.deleted_at IS NOT NULL AND t.deleted_at <= app_now() THEN 'deleted'
           WHEN t.valid_from > app_now() THEN 'pending'
           WHEN t.valid_until IS NOT NULL AND t.valid_until <= app_now()
               THEN CASE WHEN t.version < (SELECT max(o.version) FROM main.{table} AS o
                                            WHERE {same_claim} AND {o_written})
                         THEN 'superseded' ELSE 'expired' END
           WHEN EXISTS (
               SELECT 1 FROM main.{table} AS o
               WHERE {same_claim}
                 AND {o_written} AND o.valid_from <= app_now() AND (o.valid_until IS NULL OR o.valid_until > app_now())
                 AND (o.deleted_at IS NULL OR o.deleted_at > app_now())
                 AND ((o.user_id IS NOT NULL) + (o.agent_id IS NOT NULL) + (o.thread_id IS NOT NULL),
                      o.version, t.id) > ((t.user_id IS NOT NULL) + (t.agent_id IS NOT NULL) + (t.thread_id IS NOT NULL),
                                          t.version, o.id))
               THEN 'superseded'
           ELSE 'current'
       END AS status
FROM main.{table} AS t
WHERE {t_written};

CREATE TEMP VIEW {table} AS
SELECT {columns} FROM temp.{table}_history WHERE status = 'current';
