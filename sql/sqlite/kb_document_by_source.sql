-- The document ingested from :source_uri into :collection for exactly this scope, if any.
SELECT id, title, content_hash, metadata_json, version, deleted_at
FROM knowledge_base_document
WHERE collection = :collection AND source_uri = :source_uri
  AND user_id IS :user_id AND agent_id IS :agent_id AND thread_id IS :thread_id
