-- Chunks with no embedding from :model yet (e.g. demo rows seeded as plain text).
-- SQLite's "embedding_model IS NOT :model" is NULL-safe; DECODE is too ("In a DECODE function,
-- Oracle considers two nulls to be equivalent", SQL Language Reference, DECODE).
SELECT seq, id, content FROM knowledge_base_chunk
WHERE embedding IS NULL OR DECODE(embedding_model, :model, 0, 1) = 1
ORDER BY seq
