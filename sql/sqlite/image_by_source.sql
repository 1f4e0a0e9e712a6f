-- The image ingested from :source_uri into :collection for exactly this scope, if any (never its bytes).
SELECT id, title, sha256, description, document_id, version, deleted_at
FROM image_memory
WHERE collection = :collection AND source_uri = :source_uri
  AND user_id IS :user_id AND agent_id IS :agent_id AND thread_id IS :thread_id
