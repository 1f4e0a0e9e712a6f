-- Compaction: conversation :conversation's latest compaction record (a `compaction` event whose
-- content_json names the summary and the turn range), if any, and its summary row, found by the id the
-- event names (CROSS JOIN: the conversation's events by their index, then the summary by its key).
SELECT e.id, e.content_json, s.id AS summary_id
FROM conversation_memory e
CROSS JOIN summarization_memory s
WHERE e.conversation_id = :conversation AND e.event_type = 'compaction'
  AND s.id = json_extract(e.content_json, '$.summary_id') AND s.deleted_at IS NULL
ORDER BY e.created_at DESC, e.id DESC
LIMIT 1
