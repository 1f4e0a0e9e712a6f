-- Recall rows of turns by place (:turns, a JSON list of [conversation id, turn number]) the caller may
-- see: the turns around a recalled turn the ranker asks for (conversations/ranking.py), and the turn a
-- new turn replies to, embedded with it (recall_index.py). Places naming no turn give nothing.
SELECT r.seq, r.id, r.kind, r.conversation_id, r.turn_index, r.first_turn, r.speaker, r.said_at, r.content,
       r.user_id, r.agent_id
FROM conversation_recall r
JOIN JSON_TABLE(:turns, '$[*]' COLUMNS (conversation_id VARCHAR2(64) PATH '$[0]', turn_index NUMBER PATH '$[1]')) j
  ON r.conversation_id = j.conversation_id AND r.turn_index = j.turn_index
WHERE r.kind = 'turn'
