-- The document of a source in a collection and exactly this scope (NULL-safe DECODE).
SELECT id, title, content_hash, metadata_json, version, deleted_at
FROM knowledge_base_document
WHERE collection = :collection AND source_uri = :source_uri
  AND DECODE(user_id, :user_id, 1, 0) = 1
  AND DECODE(agent_id, :agent_id, 1, 0) = 1
  AND DECODE(thread_id, :thread_id, 1, 0) = 1
