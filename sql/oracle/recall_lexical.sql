-- Conversation recall's lexical leg: Oracle Text over the caller's turns and summaries, best first, at
-- most :limit. VPD adds the tenant, user and agent predicate; the CONTEXT index on
-- conversation_recall.content filters by tenant_id inside the index (install/026). The recall policy
-- narrows before anything is ranked: the user exactly the caller's (:user_id), the agent exactly the
-- caller's unless :any_agent = 1, and with :conversation that conversation alone (DECODE treats two
-- NULLs as equal). :expr is built as kb_lexical's (manager/backend/oracle/kb.py): no word is syntax.
SELECT r.seq, SCORE(1) AS score
FROM conversation_recall r
WHERE CONTAINS(r.content, :expr, 1) > 0
  AND DECODE(r.user_id, :user_id, 1, 0) = 1 AND (:any_agent = 1 OR DECODE(r.agent_id, :agent_id, 1, 0) = 1)
  AND (:conversation IS NULL OR r.conversation_id = :conversation)
ORDER BY score DESC, r.seq
FETCH FIRST :limit ROWS ONLY
