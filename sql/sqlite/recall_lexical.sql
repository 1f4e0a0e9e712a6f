-- Conversation recall's lexical leg: BM25 over the caller's turns and summaries, best first (bm25 is
-- smaller for better matches). recall_match is the bound tenant's own FTS5 index over the recall
-- table, joined to each match's row with the caller's scope checked inside the
-- view. The recall policy narrows before anything is ranked: the user exactly the caller's (:user_id;
-- the wall keeps other users out, this also keeps out rows of no user), the agent exactly the
-- caller's unless :any_agent = 1, and with :conversation that conversation alone. FTS5 returns the
-- matches in bm25 order and the backend reads only as many as it needs (as kb_lexical).
SELECT m.seq, m.bm25
FROM recall_match m
WHERE m.fts MATCH :expr
  AND m.user_id IS :user_id AND (:any_agent = 1 OR m.agent_id IS :agent_id)
  AND (:conversation IS NULL OR m.conversation_id = :conversation)
ORDER BY m.bm25
