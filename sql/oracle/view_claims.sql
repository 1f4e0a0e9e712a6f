-- The memory view (show_memory): the caller's claims, every version VPD shows, newest first.
SELECT id, subject, predicate, content, version, valid_from, valid_until, deleted_at, created_at
FROM entity_memory
ORDER BY created_at DESC, id DESC
