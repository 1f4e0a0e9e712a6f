-- Links: the live link of one type between two ends, if there is one (adding it again returns it).
SELECT id, from_type, from_id, link_type, to_type, to_id, provenance, note, user_id, agent_id, thread_id,
       valid_from, valid_until, created_by, created_at
FROM memory_link
WHERE deleted_at IS NULL AND from_type = :from_type AND from_id = :from_id AND link_type = :link_type
  AND to_type = :to_type AND to_id = :to_id
