-- Recall rows the caller may see with no embedding of :model (written before an embedder ran over
-- them, e.g. turns migration 017 indexed), oldest first, at most :limit: `memgate reembed` fills them.
SELECT seq, id, kind, conversation_id, turn_index, speaker, said_at, content FROM conversation_recall
WHERE embedding IS NULL OR embedding_model IS NOT :model
ORDER BY seq
LIMIT :limit
