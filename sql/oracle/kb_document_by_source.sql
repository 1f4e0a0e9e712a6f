-- The document ingested from :source_uri into :collection for exactly this scope, if any.
SELECT id, title, content_hash, metadata_json, version, deleted_at
FROM knowledge_base_document
WHERE collection = :collection AND source_uri = :source_uri
  AND (user_id = :user_id OR (user_id IS NULL AND :user_id IS NULL))
  AND (agent_id = :agent_id OR (agent_id IS NULL AND :agent_id IS NULL))
  AND (thread_id = :thread_id OR (thread_id IS NULL AND :thread_id IS NULL))
