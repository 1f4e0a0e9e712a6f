-- Compaction: conversation :conversation's latest compaction record (a `compaction` event whose
-- content_json names the summary and the turn range), if any, and its summary row.
SELECT e.id, e.content_json, s.id AS summary_id
FROM conversation_memory e
JOIN summarization_memory s ON s.source_table = 'conversation_memory' AND s.source_id = e.id
WHERE e.conversation_id = :conversation AND e.event_type = 'compaction' AND s.deleted_at IS NULL
ORDER BY e.created_at DESC, e.id DESC
FETCH FIRST 1 ROWS ONLY
