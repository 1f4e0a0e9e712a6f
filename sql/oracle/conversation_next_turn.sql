-- The next turn number of conversation :id, read inside the append's transaction and locked until
-- it commits (FOR UPDATE): a second writer of the same conversation waits here and then reads the
-- number the first one wrote back (conversation_set_next_turn), so two concurrent turns never take
-- one number. SQLite's BEGIN IMMEDIATE gives the same guarantee by serialising writers.
SELECT next_turn FROM conversation WHERE id = :id FOR UPDATE
