-- Compaction: conversation :conversation's latest compaction record (a `compaction` event whose
-- content_json names the summary and the turn range), if any, and its summary row, found by the id the
-- event names.
SELECT e.id, e.content_json, s.id AS summary_id
FROM conversation_memory e
JOIN summarization_memory s ON s.id = JSON_VALUE(e.content_json, '$.summary_id')
WHERE e.conversation_id = :conversation AND e.event_type = 'compaction' AND s.deleted_at IS NULL
ORDER BY e.created_at DESC, e.id DESC
FETCH FIRST 1 ROWS ONLY
