-- Every recall embedding of :model and :bytes the caller may see, for the in-process vector cache
-- (manager/backend/sqlite/vector_cache.py RECALL); only rows after seq :after (0 for all). Its label
-- columns are the row's owner (user and agent, joined by the unit separator) and its conversation,
-- which the recall policy filters on per search; a recall row never ends, so valid_until is NULL.
SELECT r.seq, r.embedding, ifnull(r.user_id, '') || char(31) || ifnull(r.agent_id, '') AS owner,
       r.conversation_id, r.created_at AS valid_from, NULL AS valid_until
FROM conversation_recall r
WHERE r.seq > :after AND r.embedding_model = :model AND length(r.embedding) = :bytes
ORDER BY r.seq
