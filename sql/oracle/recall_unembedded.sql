-- Recall rows the caller may see with no embedding of :model, oldest first, at most :limit:
-- `memgate reembed` fills them.
SELECT seq, id, kind, conversation_id, turn_index, speaker, said_at, content FROM conversation_recall
WHERE embedding IS NULL OR embedding_model IS NULL OR embedding_model <> :model
ORDER BY seq
FETCH FIRST :limit ROWS ONLY
