-- Chunks with no embedding from :model yet (e.g. demo rows seeded as plain text).
SELECT seq, id, content FROM knowledge_base_chunk
WHERE embedding IS NULL OR embedding_model IS NOT :model
ORDER BY seq
