-- Hybrid search in one statement: both legs and their fusion (manager/kb/fusion.py convex_fusion) in
-- the database. Each leg takes its :depth best candidates among the rows the caller may see (VPD adds
-- the tenant and scope predicate to every reference to knowledge_base_chunk, and every filter is in
-- both legs, as in kb_lexical.sql and kb_vector_candidates.sql); each leg's score is divided by that
-- leg's best for this query, so its best is 1; a chunk's fused score is
--   :lexical_weight x lexical share + :vector_weight x vector share,
-- 0 for a leg that did not list it. SCORE(1) is Oracle Text's (0 to 100, larger is better, and at
-- least 1 for a match); the cosine is 1 - VECTOR_DISTANCE(..., COSINE), kept only when > 0. Ties go to
-- the better of the two ranks, then to the smaller seq (Python breaks a tie of both by the order it
-- met the ids; the order is otherwise the same). The identifier look-up's exact-name ordering
-- (manager/kb/search.py) is not here: it reads the chunks' text, so such a query fuses in Python.
-- The two legs' subqueries are named lexical_leg and vector_leg, and the query's embedding binds as
-- :query_vector: VECTOR is a data type name in 23ai (SQL Language Reference 23, VECTOR Data Type), so
-- no name here is one (tests/backend/oracle/test_static_first_contact.py checks every statement).
-- Run through OracleSession.kb_fused. NOT RUN on a live database (none runs where this was written):
-- checked statically by tests/backend/oracle, and against the two legs fused in Python by
-- tests/backend/contract/test_search_fused.py wherever MEMGATE_ORACLE_DSN is set.
WITH lexical_leg AS (
    SELECT c.seq, SCORE(1) AS score
    FROM knowledge_base_chunk c
    WHERE CONTAINS(c.content, :expr, 1) > 0
      AND (:collection IS NULL OR c.collection = :collection)
      AND (:document IS NULL OR c.document_id = :document)
      AND c.deleted_at IS NULL AND c.valid_from <= :now
      AND (c.valid_until IS NULL OR c.valid_until > :now OR :ended = 1)
    ORDER BY score DESC, c.seq
    FETCH FIRST :depth ROWS ONLY
),
vector_leg AS (
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
    FETCH FIRST :depth ROWS ONLY
),
ranked AS (
    SELECT seq, score AS lexical_score, CAST(NULL AS BINARY_DOUBLE) AS cosine,
           score / MAX(score) OVER () AS lexical_share, 0 AS vector_share,
           ROW_NUMBER() OVER (ORDER BY score DESC, seq) AS lexical_rank, CAST(NULL AS NUMBER) AS vector_rank
    FROM lexical_leg
    UNION ALL
    SELECT seq, CAST(NULL AS NUMBER), cosine,
           0, cosine / MAX(cosine) OVER (),
           CAST(NULL AS NUMBER), ROW_NUMBER() OVER (ORDER BY cosine DESC, seq)
    FROM vector_leg
),
fused AS (
    SELECT seq,
           :lexical_weight * SUM(lexical_share) + :vector_weight * SUM(vector_share) AS score,
           MAX(lexical_score) AS lexical_score, MAX(cosine) AS cosine,
           MIN(lexical_rank) AS lexical_rank, MIN(vector_rank) AS vector_rank
    FROM ranked
    GROUP BY seq
)
SELECT seq, score, lexical_score, cosine, lexical_rank, vector_rank
FROM fused
ORDER BY score DESC, LEAST(COALESCE(lexical_rank, vector_rank), COALESCE(vector_rank, lexical_rank)), seq
FETCH FIRST :limit ROWS ONLY
