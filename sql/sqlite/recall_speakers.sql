-- The speakers of the turns the caller may recall under its recall policy (the binds as
-- recall_lexical's): the names recall leaves out of the lexical query and weighs instead
-- (conversations/recall_rank.py lexical_query).
SELECT DISTINCT speaker
FROM conversation_recall
WHERE kind = 'turn' AND speaker IS NOT NULL
  AND user_id IS :user_id AND (:any_agent = 1 OR agent_id IS :agent_id)
  AND (:conversation IS NULL OR conversation_id = :conversation)
