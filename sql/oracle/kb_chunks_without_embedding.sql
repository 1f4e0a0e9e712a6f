-- Chunks with no embedding from :model (DECODE(a, b, 0, 1) = 1 is SQLite's a IS NOT b).
SELECT seq, id, content FROM knowledge_base_chunk
WHERE embedding IS NULL OR DECODE(embedding_model, :model, 0, 1) = 1
ORDER BY seq
