-- `memgate turn ls`: thread :thread's turns and clarify answers of tenant :tenant in order, whoever
-- wrote them, and the thread's summaries (compaction) by the turn they end at. Operator (owner) only.
SELECT 'turn' AS kind, id, turn_index, role, event_type, user_id, agent_id, content, created_at
FROM conversation_memory
WHERE tenant_id = :tenant AND thread_id = :thread AND turn_index IS NOT NULL
  AND event_type IN ('turn', 'clarify_answer')
UNION ALL
SELECT 'summary', s.id, JSON_VALUE(e.content_json, '$.turns.last' RETURNING NUMBER), 'summary', 'summary',
       s.user_id, s.agent_id, s.content, s.created_at
FROM summarization_memory s
JOIN conversation_memory e ON e.id = s.source_id AND e.tenant_id = s.tenant_id AND e.event_type = 'compaction'
WHERE s.tenant_id = :tenant AND s.thread_id = :thread AND s.deleted_at IS NULL
ORDER BY 3, 1 DESC, 2
