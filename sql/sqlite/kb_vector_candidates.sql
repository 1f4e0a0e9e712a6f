-- Every embedding the caller may search with this model: the walled view and the
-- metadata filters narrow the rows first; the manager ranks them by exact cosine.
SELECT c.seq, c.embedding
FROM knowledge_base_chunk c
WHERE c.embedding_model = :model AND length(c.embedding) = :bytes
  AND (:collection IS NULL OR c.collection = :collection)
  AND (:document IS NULL OR c.document_id = :document)
  AND c.deleted_at IS NULL AND c.valid_from <= :now
  AND (c.valid_until IS NULL OR c.valid_until > :now OR :ended = 1)
