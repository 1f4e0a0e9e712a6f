-- Compaction: the caller's conversation's latest compaction record (a `compaction` event whose
-- content_json names the summary and the turn range), if any, and its summary row.
SELECT e.id, e.content_json, s.id AS summary_id
FROM conversation_memory e
JOIN summarization_memory s ON s.source_table = 'conversation_memory' AND s.source_id = e.id
WHERE e.event_type = 'compaction' AND s.deleted_at IS NULL
  AND ((:thread IS NOT NULL AND e.thread_id = :thread)
       OR (:thread IS NULL AND e.thread_id IS NULL AND :session IS NOT NULL AND e.session_id = :session))
ORDER BY e.created_at DESC, e.id DESC
LIMIT 1
