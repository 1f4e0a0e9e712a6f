SELECT id, subject, predicate, content, version, status, valid_from, valid_until, deleted_at
FROM entity_memory_history
WHERE valid_from >= :since OR valid_until >= :since OR deleted_at >= :since
ORDER BY coalesce(deleted_at, valid_until, valid_from) DESC, subject, predicate
