-- Operator only: keep :secret as server secret :name unless one is kept already (the first
-- writer wins). SQLite's INSERT ... ON CONFLICT DO NOTHING: a second writer's insert fails on
-- the primary key (DUP_VAL_ON_INDEX, after the first commits) and is dropped.
BEGIN
  INSERT INTO server_secret (name, secret) VALUES (:name, :secret);
EXCEPTION
  WHEN DUP_VAL_ON_INDEX THEN
    NULL;
END;
