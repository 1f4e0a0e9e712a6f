-- Expiry: the recall rows of the turns that reply to the turns :keys (a JSON list of conversation_memory
-- ids of :tenant, read before they go) and hold an embedding: it carries the words of the turn they reply
-- to (recall_index.embedding_text), so it is cleared with that turn (manager/retention/registry.py).
SELECT s.id AS row_key, s.user_id, s.agent_id, NULL AS thread_id
FROM conversation_recall p
JOIN conversation_recall s
  ON s.tenant_id = p.tenant_id AND s.conversation_id = p.conversation_id AND s.turn_index = p.turn_index + 1
WHERE p.tenant_id = :tenant AND p.kind = 'turn'
  AND p.id IN (SELECT j.k FROM JSON_TABLE(:keys, '$[*]' COLUMNS (k VARCHAR2(256) PATH '$')) j)
  AND s.kind = 'turn' AND s.embedding IS NOT NULL
ORDER BY s.id
