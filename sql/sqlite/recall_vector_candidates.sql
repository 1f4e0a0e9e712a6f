-- Every recall embedding of :model and :bytes the caller may see that the recall policy keeps (as
-- recall_lexical): the vector leg without the cache, whose reference it is; the manager ranks them
-- by exact cosine.
SELECT r.seq, r.embedding
FROM conversation_recall r
WHERE r.embedding_model = :model AND length(r.embedding) = :bytes
  AND r.user_id IS :user_id AND (:any_agent = 1 OR r.agent_id IS :agent_id)
  AND (:conversation IS NULL OR r.conversation_id = :conversation)
