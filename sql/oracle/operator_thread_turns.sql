-- `memgate turn ls`: the turns and clarify answers of thread name :thread in tenant :tenant, every
-- conversation of that name (one per user and agent that used it), each in order, and their
-- summaries (compaction) by the turn they end at. Operator (owner) only.
SELECT 'turn' AS kind, m.id, m.turn_index, m.role, m.event_type, m.user_id, m.agent_id, m.content, m.created_at,
       c.id AS conversation_id
FROM conversation c
JOIN conversation_memory m ON m.conversation_id = c.id AND m.tenant_id = c.tenant_id
WHERE c.tenant_id = :tenant AND c.thread_name = :thread AND m.turn_index IS NOT NULL
  AND m.event_type IN ('turn', 'clarify_answer')
UNION ALL
SELECT 'summary', s.id, JSON_VALUE(e.content_json, '$.turns.last' RETURNING NUMBER), 'summary', 'summary',
       s.user_id, s.agent_id, s.content, s.created_at, c.id
FROM conversation c
JOIN summarization_memory s ON s.conversation_id = c.id AND s.tenant_id = c.tenant_id
JOIN conversation_memory e ON e.id = s.source_id AND e.tenant_id = s.tenant_id AND e.event_type = 'compaction'
WHERE c.tenant_id = :tenant AND c.thread_name = :thread AND s.deleted_at IS NULL
ORDER BY 10, 3, 1 DESC, 2
