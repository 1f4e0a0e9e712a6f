-- Oracle only: the :depth best chunks by exact cosine, ranked in the database (the same result
-- as kb_vector_candidates + the manager's ranking: best first, ties by seq, only cosine > 0).
-- Binds: those of kb_vector_candidates plus :query_vector (array.array('f')) and :depth.
-- VECTOR_DISTANCE needs operands of the same format and dimension count ("expr1 and expr2 ...
-- must have the same format and number of dimensions", SQL Reference, VECTOR_DISTANCE) and the
-- column is VECTOR(*, FLOAT32): the CASE keeps rows of another dimension count away from it
-- (CASE evaluates its WHEN first), so a stray row cannot fail the whole query.
-- Plain FETCH FIRST is an exact search; no vector index exists (flexible dimensions).
SELECT seq, 1 - distance AS cosine
FROM (SELECT c.seq,
             CASE WHEN VECTOR_DIMENSION_COUNT(c.embedding) = VECTOR_DIMENSION_COUNT(:query_vector)
                  THEN VECTOR_DISTANCE(c.embedding, :query_vector, COSINE) END AS distance
      FROM knowledge_base_chunk c
      WHERE c.embedding_model = :model AND VECTOR_DIMENSION_COUNT(c.embedding) * 4 = :bytes
        AND (:collection IS NULL OR c.collection = :collection)
        AND (:document IS NULL OR c.document_id = :document)
        AND c.deleted_at IS NULL AND c.valid_from <= :now
        AND (c.valid_until IS NULL OR c.valid_until > :now)
        AND (c.user_id IS NULL OR c.user_id = :"USER")
        AND (c.agent_id IS NULL OR c.agent_id = :agent)
        AND (c.thread_id IS NULL OR c.thread_id = :thread))
WHERE distance < 1
ORDER BY distance, seq
FETCH FIRST :depth ROWS ONLY
