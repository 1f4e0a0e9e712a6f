-- 027_recall_speakers.sql: the speakers of a user's recalled turns by index (SQLite migration 026).
-- Run by: MEMGATE_OWNER. Re-runnable (IF NOT EXISTS).
--
-- Recall takes the names of the speakers in the caller's scope out of the lexical query
-- (manager/conversations/recall_rank.py lexical_query) once per window: recall_speakers.sql reads
-- them from this index rather than from every turn of the user.
CREATE INDEX IF NOT EXISTS conversation_recall_speaker_ix ON conversation_recall (tenant_id, user_id, speaker)
/
