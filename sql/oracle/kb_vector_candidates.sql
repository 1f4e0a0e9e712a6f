-- The vector leg: the :limit chunks closest to :query_vector by exact cosine, ranked in the database
-- (SQLite ranks its candidates in Python: the same order, best first, ties by seq, cosine > 0).
-- VECTOR_DISTANCE needs operands "of the same format and number of dimensions" (SQL Reference,
-- VECTOR_DISTANCE), so only rows of :model and :dims are compared; CASE evaluates the distance only
-- for those (CASE is evaluated left to right and stops at the first true condition). COSINE returns
-- the cosine distance, 1 - cosine similarity, as BINARY_DOUBLE.
SELECT seq, cosine
FROM (SELECT c.seq,
             CASE WHEN c.embedding_model = :model AND VECTOR_DIMENSION_COUNT(c.embedding) = :dims
                  THEN 1 - VECTOR_DISTANCE(c.embedding, :query_vector, COSINE) END AS cosine
      FROM knowledge_base_chunk c
      WHERE c.embedding_model = :model AND VECTOR_DIMENSION_COUNT(c.embedding) = :dims
        AND (:collection IS NULL OR c.collection = :collection)
        AND (:document IS NULL OR c.document_id = :document)
        AND c.deleted_at IS NULL AND c.valid_from <= :now
        AND (c.valid_until IS NULL OR c.valid_until > :now OR :ended = 1))
WHERE cosine > 0
ORDER BY cosine DESC, seq
FETCH FIRST :limit ROWS ONLY
