-- Close a claim version (a correction inserts the next one in the same transaction).
UPDATE entity_memory SET valid_until = :now WHERE id = :id AND valid_until IS NULL
