-- Bump conversation :id's counter past the turn numbers an append took (:next_turn is the first free
-- one), in the append's transaction, which holds the row's lock (conversation_next_turn).
UPDATE conversation SET next_turn = :next_turn WHERE id = :id
