-- Recall rows by seq (:seqs, a JSON list) the caller may see: what a candidate is (a turn or a summary),
-- where it is (its conversation and turn numbers), who said it and when, and its text.
SELECT r.seq, r.id, r.kind, r.conversation_id, r.turn_index, r.first_turn, r.speaker, r.said_at, r.content,
       r.user_id, r.agent_id
FROM json_each(:seqs) AS j
CROSS JOIN conversation_recall r
WHERE r.seq = j.value
