-- Operator-only: every scope an active toolbox row of any tenant requires (for the
-- protected-resource metadata, which is public and served before any tenant is known).
SELECT DISTINCT s.value AS scope
FROM base_toolbox_memory t, json_each(t.access_policy, '$.required_scopes') s
WHERE json_valid(t.access_policy)
  AND json_type(t.access_policy, '$.required_scopes') = 'array'
  AND s.type = 'text'
  AND t.valid_from <= :now AND (t.valid_until IS NULL OR t.valid_until > :now) AND t.deleted_at IS NULL
ORDER BY 1
