-- The memory view (show_memory): the caller's remembered notes, preferences and procedures (the
-- promotion gate's collection), every version VPD shows, newest first; titles only, never the
-- document's text; with the scope each is visible in.
SELECT id, title, version, valid_from, valid_until, deleted_at, created_at, user_id, agent_id, thread_id
FROM knowledge_base_document
WHERE collection = :collection
ORDER BY created_at DESC, id DESC
