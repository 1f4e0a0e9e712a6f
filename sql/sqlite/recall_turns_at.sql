-- Recall rows of turns by place (:turns, a JSON list of [conversation id, turn number]) the caller may
-- see: the turns around a recalled turn the ranker asks for (conversations/ranking.py), and the turn a
-- new turn replies to, embedded with it (recall_index.py). Places naming no turn give nothing.
SELECT r.seq, r.id, r.kind, r.conversation_id, r.turn_index, r.first_turn, r.speaker, r.said_at, r.content,
       r.user_id, r.agent_id
FROM json_each(:turns) AS j
CROSS JOIN conversation_recall r
WHERE r.conversation_id = j.value ->> 0 AND r.turn_index = j.value ->> 1 AND r.kind = 'turn'
