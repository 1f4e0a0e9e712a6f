-- Context assembly: workflow versions in the caller's scope, every lifecycle state, whose
-- key, title or text holds a question term (:terms, a JSON list of lower-case words).
SELECT id, workflow_key, title, content, steps_json, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM workflow_memory AS w
WHERE EXISTS (SELECT 1 FROM json_each(:terms) AS t
              WHERE instr(lower(w.workflow_key || ' ' || w.title || ' ' || w.content), t.value) > 0)
ORDER BY workflow_key, version DESC, id
LIMIT :limit
