-- Conversation recall's vector leg: the :limit recall rows closest to :query_vector by exact cosine, ranked in
-- the database (as kb_vector_candidates), among the rows the caller may see that the recall policy
-- keeps (as recall_lexical). The vector index on conversation_recall.embedding (install/026) is an
-- access path the optimizer may take; the statement asks for exact distances either way.
SELECT seq, cosine
FROM (SELECT r.seq,
             CASE WHEN r.embedding_model = :model AND VECTOR_DIMENSION_COUNT(r.embedding) = :dims
                  THEN 1 - VECTOR_DISTANCE(r.embedding, :query_vector, COSINE) END AS cosine
      FROM conversation_recall r
      WHERE r.embedding_model = :model AND VECTOR_DIMENSION_COUNT(r.embedding) = :dims
        AND DECODE(r.user_id, :user_id, 1, 0) = 1 AND (:any_agent = 1 OR DECODE(r.agent_id, :agent_id, 1, 0) = 1)
        AND (:conversation IS NULL OR r.conversation_id = :conversation))
WHERE cosine > 0
ORDER BY cosine DESC, seq
FETCH FIRST :limit ROWS ONLY
