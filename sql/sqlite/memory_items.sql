-- Links: the memories :ids (a JSON list) names, of every linkable type, as the caller's wall shows
-- them, whatever their lifecycle state; :type (a logical table name) narrows to one type, NULL
-- reads them all. label and content are what a linked result shows (a document shows its title,
-- never its full text; an image its file name and description, never its bytes).
SELECT 'entity_memory' AS memory_type, id, user_id, agent_id, thread_id, version, valid_from, valid_until,
       deleted_at, subject || ' ' || predicate AS label, content
FROM entity_memory WHERE (:type IS NULL OR :type = 'entity_memory') AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'workflow_memory', id, user_id, agent_id, thread_id, version, valid_from, valid_until, deleted_at,
       title, content
FROM workflow_memory WHERE (:type IS NULL OR :type = 'workflow_memory') AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'summarization_memory', id, user_id, agent_id, thread_id, version, valid_from, valid_until, deleted_at,
       title, content
FROM summarization_memory
WHERE (:type IS NULL OR :type = 'summarization_memory') AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'knowledge_base_document', id, user_id, agent_id, thread_id, version, valid_from, valid_until,
       deleted_at, title, title
FROM knowledge_base_document
WHERE (:type IS NULL OR :type = 'knowledge_base_document') AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'knowledge_base_chunk', c.id, c.user_id, c.agent_id, c.thread_id, c.version, c.valid_from, c.valid_until,
       c.deleted_at, (SELECT d.title FROM knowledge_base_document d WHERE d.id = c.document_id), c.content
FROM knowledge_base_chunk c
WHERE (:type IS NULL OR :type = 'knowledge_base_chunk') AND c.id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'conversation_memory', id, user_id, agent_id, thread_id, version, valid_from, valid_until, deleted_at,
       event_type, content
FROM conversation_memory
WHERE (:type IS NULL OR :type = 'conversation_memory') AND id IN (SELECT value FROM json_each(:ids))
UNION ALL
SELECT 'image_memory', id, user_id, agent_id, thread_id, version, valid_from, valid_until, deleted_at,
       title, description
FROM image_memory WHERE (:type IS NULL OR :type = 'image_memory') AND id IN (SELECT value FROM json_each(:ids))
