-- Context assembly: summaries in the caller's scope, every lifecycle state, whose title or
-- text holds a question term (:terms, a JSON list of lower-case words without spaces). A
-- conversation's compaction summaries are recall's (the recall index ranks them), not these.
SELECT id, title, content, period_start, period_end, source_versions_json, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM summarization_memory m
WHERE m.conversation_id IS NULL
  AND EXISTS (SELECT 1 FROM JSON_TABLE(:terms, '$[*]' COLUMNS (term VARCHAR2(400) PATH '$')) t
              WHERE INSTR(LOWER(m.title), t.term) > 0 OR INSTR(LOWER(m.content), t.term) > 0)
ORDER BY valid_from DESC, id
FETCH FIRST :limit ROWS ONLY
