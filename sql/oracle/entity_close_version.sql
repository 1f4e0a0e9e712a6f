-- Close one claim version (the trigger in install/022 allows only lifecycle columns to change).
UPDATE entity_memory SET valid_until = :now WHERE id = :id AND valid_until IS NULL
