-- Context assembly: claim versions in the caller's scope, every lifecycle state (selection
-- records why each is left out), whose subject, predicate or value holds a question term.
-- :terms is a JSON list of lower-case words without spaces, so testing each column is
-- SQLite's test of the three joined by spaces, and no concatenation can pass 4,000 bytes.
SELECT id, subject, predicate, content, content_json, confidence, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM entity_memory e
WHERE EXISTS (SELECT 1 FROM JSON_TABLE(:terms, '$[*]' COLUMNS (term VARCHAR2(400) PATH '$')) t
              WHERE INSTR(LOWER(e.subject), t.term) > 0 OR INSTR(LOWER(e.predicate), t.term) > 0
                 OR INSTR(LOWER(e.content), t.term) > 0)
ORDER BY subject, predicate, version DESC, id
FETCH FIRST :limit ROWS ONLY
