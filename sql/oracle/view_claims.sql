-- The memory view (show_memory): the caller's claims, every version VPD shows, newest first,
-- with the scope each is visible in.
SELECT id, subject, predicate, content, version, valid_from, valid_until, deleted_at, created_at,
       user_id, agent_id, thread_id
FROM entity_memory
ORDER BY created_at DESC, id DESC
