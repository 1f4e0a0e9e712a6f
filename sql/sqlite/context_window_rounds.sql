-- The tool rounds a window has had and the tokens they were charged (:window, a manifest id).
SELECT count(*) AS rounds, coalesce(sum(token_count), 0) AS tokens
FROM conversation_memory
WHERE window_id = :window AND event_type = 'tool_result'
