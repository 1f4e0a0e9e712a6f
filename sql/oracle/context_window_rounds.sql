-- The tool rounds a window has had and the tokens they were charged (:window, a manifest id).
-- SQLite's transaction takes the write lock first (BEGIN IMMEDIATE), so two processes closing a
-- round of one window count one after the other. Oracle's does not, so the block locks the
-- window's manifest row first (SELECT ... FOR UPDATE, held until the transaction ends) and only
-- then counts, as an implicit result (DBMS_SQL.RETURN_RESULT): a second writer waits for the
-- first to commit and counts its round too. Outside a transaction the lock ends with the call.
DECLARE
  c SYS_REFCURSOR;
BEGIN
  FOR w IN (SELECT id FROM conversation_memory WHERE id = :window FOR UPDATE) LOOP
    NULL;
  END LOOP;
  OPEN c FOR
    SELECT COUNT(*) AS rounds, COALESCE(SUM(token_count), 0) AS tokens
    FROM conversation_memory
    WHERE window_id = :window AND event_type = 'tool_result';
  DBMS_SQL.RETURN_RESULT(c);
END;
