-- The speakers of the turns the caller may recall under its recall policy (the binds as
-- recall_lexical's): the names recall leaves out of the lexical query and weighs instead
-- (conversations/recall_rank.py lexical_query). VPD adds the tenant, user and agent predicate.
SELECT DISTINCT r.speaker
FROM conversation_recall r
WHERE r.kind = 'turn' AND r.speaker IS NOT NULL
  AND DECODE(r.user_id, :user_id, 1, 0) = 1 AND (:any_agent = 1 OR DECODE(r.agent_id, :agent_id, 1, 0) = 1)
  AND (:conversation IS NULL OR r.conversation_id = :conversation)
