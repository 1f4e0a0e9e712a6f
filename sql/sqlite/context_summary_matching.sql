-- Context assembly: summaries in the caller's scope, every lifecycle state, whose title or
-- text holds a question term (:terms, a JSON list of lower-case words). A conversation's compaction
-- summaries are recall's (the recall index ranks them with the turns), not these.
SELECT id, title, content, period_start, period_end, source_versions_json, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM summarization_memory AS m
WHERE m.conversation_id IS NULL
  AND EXISTS (SELECT 1 FROM json_each(:terms) AS t
              WHERE instr(lower(m.title || ' ' || m.content), t.value) > 0)
ORDER BY valid_from DESC, id
LIMIT :limit
