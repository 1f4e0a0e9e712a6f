-- The speakers of a user's recalled turns, found by a few index seeks (sql/sqlite/recall_speakers.sql
-- walks this index from speaker to speaker) instead of a scan of every turn of the user: recall
-- takes the names it finds out of the lexical query (manager/conversations/recall_rank.py
-- lexical_query), once per window, so at 20,000 turns of one user the scan cost 50 ms a window.
CREATE INDEX conversation_recall_speaker_ix ON base_conversation_recall (tenant_id, user_id, speaker);
