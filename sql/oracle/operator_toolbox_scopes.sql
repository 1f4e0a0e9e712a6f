-- Operator only (the HTTP server's public metadata): every scope an active toolbox row requires.
-- SQLite keeps the text elements of a required_scopes array; here `element_json` is each element as
-- JSON text, and only strings (which start with a quote) count. A required_scopes that is a single
-- string, not an array, counts too here (JSON path lax mode treats it as an array of one).
SELECT DISTINCT j.scope AS scope
FROM toolbox_memory t,
     JSON_TABLE(t.access_policy, '$.required_scopes[*]'
                COLUMNS (element_json VARCHAR2(4000) FORMAT JSON PATH '$', scope VARCHAR2(4000) PATH '$')) j
WHERE SUBSTR(j.element_json, 1, 1) = '"'
  AND t.valid_from <= :now AND (t.valid_until IS NULL OR t.valid_until > :now) AND t.deleted_at IS NULL
ORDER BY 1
