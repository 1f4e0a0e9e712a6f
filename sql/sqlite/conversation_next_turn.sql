-- The next turn number of conversation :id, read inside the append's transaction. SQLite's
-- BEGIN IMMEDIATE already holds the write lock, so no other writer can read the same number
-- before this transaction bumps it (conversation_set_next_turn); Oracle locks the row instead.
SELECT next_turn FROM conversation WHERE id = :id
