-- Context assembly: the budget guideline's stable row id, the budget's new keys, the
-- columns thread events need, and the key that seals elicitation request state.
--
-- This migration rewrites guideline rows, so it first drops the guard triggers of
-- base_guideline_memory (a migration runs with no tenant bound, and the guards refuse
-- every write then); the runner rebuilds the whole wall right after the last migration.

DROP TRIGGER IF EXISTS base_guideline_memory__tenant_insert;
DROP TRIGGER IF EXISTS base_guideline_memory__tenant_update;
DROP TRIGGER IF EXISTS base_guideline_memory__tenant_delete;
DROP TRIGGER IF EXISTS base_guideline_memory__scope_insert;
DROP TRIGGER IF EXISTS base_guideline_memory__scope_update;
DROP TRIGGER IF EXISTS base_guideline_memory__scope_delete;

-- A guideline's logical id, the same for all its versions: `id` stays one row version's
-- key (global, per version), `row_id` names the guideline within its tenant. The
-- tenant-wide budget is `context_context_budget` in every tenant; any other guideline
-- (and a scoped budget override) keeps the id of its first version as its row id.
ALTER TABLE base_guideline_memory ADD COLUMN row_id TEXT;

UPDATE base_guideline_memory SET row_id = CASE
    WHEN guideline_key = 'context_budget' AND user_id IS NULL AND agent_id IS NULL AND thread_id IS NULL
        THEN 'context_context_budget'
    ELSE (SELECT f.id FROM base_guideline_memory AS f
          WHERE f.tenant_id = base_guideline_memory.tenant_id
            AND f.guideline_key = base_guideline_memory.guideline_key
            AND f.user_id IS base_guideline_memory.user_id AND f.agent_id IS base_guideline_memory.agent_id
            AND f.thread_id IS base_guideline_memory.thread_id
          ORDER BY f.version, f.id LIMIT 1)
END;

-- (tenant, row id, version) names exactly one row version: a budget_ref is exact, and two
-- concurrent policy updates of the same version cannot both commit.
CREATE UNIQUE INDEX guideline_row_version_uq ON base_guideline_memory (tenant_id, row_id, version);

-- A writer that names no row id starts a guideline of its own: its row id is its id.
CREATE TRIGGER base_guideline_memory_row_id AFTER INSERT ON base_guideline_memory
WHEN NEW.row_id IS NULL
BEGIN
    UPDATE base_guideline_memory SET row_id = NEW.id WHERE id = NEW.id;
END;

-- The budget's keys max_window_tokens and max_tool_rounds are now usable_context and
-- max_rounds. Like any policy update: the open version is retired and the next version,
-- with the renamed keys, inserted (a merge patch drops the keys a row did not have).
INSERT INTO base_guideline_memory
    (id, tenant_id, user_id, agent_id, thread_id, guideline_key, content, content_json, version,
     valid_from, source_table, source_id, source_version, created_by, created_at, row_id)
SELECT 'gdl_' || lower(hex(randomblob(10))), tenant_id, user_id, agent_id, thread_id, guideline_key, content,
       json_patch(json_remove(content_json, '$.max_window_tokens', '$.max_tool_rounds'),
                  json_object('usable_context', json_extract(content_json, '$.max_window_tokens'),
                              'max_rounds', json_extract(content_json, '$.max_tool_rounds'))),
       version + 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'guideline_memory', id, version,
       'memgate migration 004', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), row_id
FROM base_guideline_memory
WHERE guideline_key = 'context_budget' AND valid_until IS NULL AND deleted_at IS NULL
  AND json_valid(content_json)
  AND (json_type(content_json, '$.max_window_tokens') IS NOT NULL
       OR json_type(content_json, '$.max_tool_rounds') IS NOT NULL);

UPDATE base_guideline_memory
SET valid_until = (SELECT n.valid_from FROM base_guideline_memory AS n
                   WHERE n.source_table = 'guideline_memory' AND n.source_id = base_guideline_memory.id
                     AND n.created_by = 'memgate migration 004')
WHERE valid_until IS NULL
  AND id IN (SELECT source_id FROM base_guideline_memory
             WHERE source_table = 'guideline_memory' AND created_by = 'memgate migration 004');

-- Thread events. turn_index orders a thread's turns (the window's volatile tail);
-- session_id keeps the events of a window opened with no thread (a stdio server session);
-- window_id is the manifest a tool result, pointer or clarify answer belongs to;
-- token_count is what the event cost the window. An event's other references use the
-- provenance columns: a tool result's source is its mcp_call_log row (source_id = call_id).
ALTER TABLE base_conversation_memory ADD COLUMN turn_index INTEGER;
ALTER TABLE base_conversation_memory ADD COLUMN session_id TEXT;
ALTER TABLE base_conversation_memory ADD COLUMN window_id TEXT;
ALTER TABLE base_conversation_memory ADD COLUMN token_count INTEGER;

CREATE INDEX conversation_window_ix ON base_conversation_memory (tenant_id, window_id, event_type);
CREATE INDEX conversation_event_ix ON base_conversation_memory (tenant_id, event_type, thread_id, created_at);
CREATE UNIQUE INDEX conversation_turn_uq ON base_conversation_memory
    (tenant_id, ifnull(thread_id, ''), ifnull(session_id, ''), turn_index) WHERE turn_index IS NOT NULL;

-- Operator table (no tenant view, like tenant_mapping): the key every server process on
-- this database seals MCP request state with, so a second process can finish an
-- elicitation round the first one started. Created on first use.
CREATE TABLE base_server_secret (
    name TEXT PRIMARY KEY,
    secret BLOB NOT NULL CHECK (length(secret) >= 32),
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
