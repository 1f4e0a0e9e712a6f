-- Links: the memories :ids (a JSON list) names, of every linkable type, as the caller's wall shows
-- them, whatever their lifecycle state; :type (a logical table name) narrows to one type, NULL
-- reads them all. label and content are what a linked result shows (a document shows its title,
-- never its full text; an image its file name and description, never its bytes). CROSS JOIN keeps
-- the list as the outer loop, so each row is found by its key (the planner would otherwise walk the
-- tenant's index of each table and test every row against the list: a cost that grew with the tenant).
SELECT 'entity_memory' AS memory_type, e.id, e.user_id, e.agent_id, e.thread_id, e.version, e.valid_from,
       e.valid_until, e.deleted_at, e.subject || ' ' || e.predicate AS label, e.content
FROM json_each(:ids) AS j CROSS JOIN entity_memory AS e
WHERE (:type IS NULL OR :type = 'entity_memory') AND e.id = j.value
UNION ALL
SELECT 'workflow_memory', w.id, w.user_id, w.agent_id, w.thread_id, w.version, w.valid_from, w.valid_until,
       w.deleted_at, w.title, w.content
FROM json_each(:ids) AS j CROSS JOIN workflow_memory AS w
WHERE (:type IS NULL OR :type = 'workflow_memory') AND w.id = j.value
UNION ALL
SELECT 'summarization_memory', s.id, s.user_id, s.agent_id, s.thread_id, s.version, s.valid_from, s.valid_until,
       s.deleted_at, s.title, s.content
FROM json_each(:ids) AS j CROSS JOIN summarization_memory AS s
WHERE (:type IS NULL OR :type = 'summarization_memory') AND s.id = j.value
UNION ALL
SELECT 'knowledge_base_document', d.id, d.user_id, d.agent_id, d.thread_id, d.version, d.valid_from,
       d.valid_until, d.deleted_at, d.title, d.title
FROM json_each(:ids) AS j CROSS JOIN knowledge_base_document AS d
WHERE (:type IS NULL OR :type = 'knowledge_base_document') AND d.id = j.value
UNION ALL
SELECT 'knowledge_base_chunk', c.id, c.user_id, c.agent_id, c.thread_id, c.version, c.valid_from, c.valid_until,
       c.deleted_at, (SELECT d.title FROM knowledge_base_document d WHERE d.id = c.document_id), c.content
FROM json_each(:ids) AS j CROSS JOIN knowledge_base_chunk AS c
WHERE (:type IS NULL OR :type = 'knowledge_base_chunk') AND c.id = j.value
UNION ALL
SELECT 'conversation_memory', m.id, m.user_id, m.agent_id, m.thread_id, m.version, m.valid_from, m.valid_until,
       m.deleted_at, m.event_type, m.content
FROM json_each(:ids) AS j CROSS JOIN conversation_memory AS m
WHERE (:type IS NULL OR :type = 'conversation_memory') AND m.id = j.value
UNION ALL
SELECT 'image_memory', i.id, i.user_id, i.agent_id, i.thread_id, i.version, i.valid_from, i.valid_until,
       i.deleted_at, i.title, i.description
FROM json_each(:ids) AS j CROSS JOIN image_memory AS i
WHERE (:type IS NULL OR :type = 'image_memory') AND i.id = j.value
