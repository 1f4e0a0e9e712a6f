-- Context assembly, recalled history: turns kept outside any thread (the caller's own notes,
-- and turns of windows opened with no thread) that hold a question term (:terms). A
-- thread's turns are its volatile tail instead (context_tail.sql).
SELECT id, event_type, role, content, turn_index, session_id, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM conversation_memory c
WHERE event_type = 'turn' AND thread_id IS NULL
  AND EXISTS (SELECT 1 FROM JSON_TABLE(:terms, '$[*]' COLUMNS (term VARCHAR2(400) PATH '$')) t
              WHERE INSTR(LOWER(c.content), t.term) > 0)
ORDER BY valid_from DESC, id
FETCH FIRST :limit ROWS ONLY
