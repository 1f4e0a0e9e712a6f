-- Links: one link by id, as the caller's wall shows it, live or removed.
SELECT id, from_type, from_id, link_type, to_type, to_id, provenance, note, user_id, agent_id, thread_id,
       valid_from, valid_until, deleted_at, created_by, created_at
FROM memory_link
WHERE id = :id
