-- Links: the live links (not deleted, valid at :now) with an end among :ids (a JSON list), in the
-- order they were made. The caller matches each end's type; the far end is read through the wall
-- again (memory_items), never taken from the link.
SELECT id, from_type, from_id, link_type, to_type, to_id, provenance, note, user_id, agent_id, thread_id,
       valid_from, valid_until, created_by, created_at
FROM memory_link
WHERE deleted_at IS NULL AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now)
  AND (from_id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
       OR to_id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j))
ORDER BY created_at, id
