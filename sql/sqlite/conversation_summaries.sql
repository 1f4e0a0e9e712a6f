-- Conversation :conversation's summaries (one per compaction), newest first.
SELECT id, title, content, period_start, period_end, source_versions_json, conversation_id, version,
       valid_from, valid_until, deleted_at, user_id, agent_id, thread_id,
       source_table, source_id, source_version
FROM summarization_memory
WHERE conversation_id = :conversation AND deleted_at IS NULL
ORDER BY valid_from DESC, id DESC
LIMIT :limit
