-- The float32 embeddings of the recall rows in :seqs (a JSON list), for exact re-scoring of the
-- cache's candidates; rows deleted or re-embedded since the cache was built are left out. CROSS JOIN
-- keeps the list as the outer loop (each row found by its key).
SELECT r.seq, r.embedding
FROM json_each(:seqs) AS j
CROSS JOIN conversation_recall r
WHERE r.seq = j.value AND r.embedding_model = :model AND length(r.embedding) = :bytes
