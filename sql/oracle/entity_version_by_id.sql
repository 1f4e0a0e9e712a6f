-- One claim version by its id, in the caller's scope, whatever its lifecycle state.
SELECT id, subject, predicate, content, content_json, confidence, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version, created_by, created_at
FROM entity_memory
WHERE id = :id
