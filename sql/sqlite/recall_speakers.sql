-- The speakers of the turns the caller may recall under its recall policy (the binds as
-- recall_lexical's): the names recall leaves out of the lexical query and weighs instead
-- (conversations/recall_rank.py lexical_query). A walk of conversation_recall_speaker_ix (migration
-- 026) from each speaker to the next, so its cost is the number of speakers, not of turns (summaries
-- have no speaker).
WITH RECURSIVE found (speaker) AS (
    SELECT (SELECT min(r.speaker) FROM conversation_recall r
            WHERE r.user_id IS :user_id AND (:any_agent = 1 OR r.agent_id IS :agent_id)
              AND (:conversation IS NULL OR r.conversation_id = :conversation))
    UNION ALL
    SELECT (SELECT min(r.speaker) FROM conversation_recall r
            WHERE r.user_id IS :user_id AND r.speaker > f.speaker AND (:any_agent = 1 OR r.agent_id IS :agent_id)
              AND (:conversation IS NULL OR r.conversation_id = :conversation))
    FROM found f
    WHERE f.speaker IS NOT NULL
)
SELECT speaker FROM found WHERE speaker IS NOT NULL
