-- The float32 embeddings of the chunks in :seqs (a JSON list), for exact re-scoring of the
-- cache's candidates; rows deleted or re-embedded since the cache was built are left out.
-- CROSS JOIN keeps the list as the outer loop, so each chunk is found by its key (the planner
-- would otherwise walk the tenant's index and test every row against the list).
SELECT c.seq, c.embedding
FROM json_each(:seqs) AS j
CROSS JOIN knowledge_base_chunk c
WHERE c.seq = j.value
  AND c.embedding_model = :model AND length(c.embedding) = :bytes AND c.deleted_at IS NULL
