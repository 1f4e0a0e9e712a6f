-- Context assembly: workflow versions in the caller's scope, every lifecycle state, whose
-- key, title or text holds a question term (:terms, a JSON list of lower-case words without
-- spaces).
SELECT id, workflow_key, title, content, steps_json, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM workflow_memory w
WHERE EXISTS (SELECT 1 FROM JSON_TABLE(:terms, '$[*]' COLUMNS (term VARCHAR2(400) PATH '$')) t
              WHERE INSTR(LOWER(w.workflow_key), t.term) > 0 OR INSTR(LOWER(w.title), t.term) > 0
                 OR INSTR(LOWER(w.content), t.term) > 0)
ORDER BY workflow_key, version DESC, id
FETCH FIRST :limit ROWS ONLY
