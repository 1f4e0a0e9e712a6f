-- The image of a source in a collection and exactly this scope (NULL-safe DECODE), never its bytes.
SELECT id, title, sha256, description, document_id, version, deleted_at
FROM image_memory
WHERE collection = :collection AND source_uri = :source_uri
  AND DECODE(user_id, :user_id, 1, 0) = 1
  AND DECODE(agent_id, :agent_id, 1, 0) = 1
  AND DECODE(thread_id, :thread_id, 1, 0) = 1
