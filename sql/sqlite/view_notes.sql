-- The memory view (show_memory): the caller's remembered notes (the promotion gate's collection),
-- every version the wall shows, newest first; titles only, never the document's text.
SELECT id, title, version, valid_from, valid_until, deleted_at, created_at
FROM knowledge_base_document
WHERE collection = :collection
ORDER BY created_at DESC, id DESC
