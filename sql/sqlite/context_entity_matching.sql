-- Context assembly: claim versions in the caller's scope, every lifecycle state (selection
-- records why each is left out), whose subject, predicate or value holds a question term.
-- :terms is a JSON list of lower-case words.
SELECT id, subject, predicate, content, content_json, confidence, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM entity_memory AS e
WHERE EXISTS (SELECT 1 FROM json_each(:terms) AS t
              WHERE instr(lower(e.subject || ' ' || e.predicate || ' ' || e.content), t.value) > 0)
ORDER BY subject, predicate, version DESC, id
LIMIT :limit
