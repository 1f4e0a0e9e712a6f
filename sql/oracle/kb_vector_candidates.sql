-- Every embedding the caller may search with this model (issue 6), as on SQLite: the manager
-- ranks them by exact cosine. :bytes is 4 x the model's dimension count (float32), so the
-- dimension test reads VECTOR_DIMENSION_COUNT * 4. embedding arrives as array.array('f'); the
-- backend hands the manager its bytes (array.tobytes()). kb_vector_ranked.sql does the ranking
-- in the database instead.
SELECT c.seq, c.embedding
FROM knowledge_base_chunk c
WHERE c.embedding_model = :model AND VECTOR_DIMENSION_COUNT(c.embedding) * 4 = :bytes
  AND (:collection IS NULL OR c.collection = :collection)
  AND (:document IS NULL OR c.document_id = :document)
  AND c.deleted_at IS NULL AND c.valid_from <= :now AND (c.valid_until IS NULL OR c.valid_until > :now)
  AND (c.user_id IS NULL OR c.user_id = :"USER")
  AND (c.agent_id IS NULL OR c.agent_id = :agent)
  AND (c.thread_id IS NULL OR c.thread_id = :thread)
