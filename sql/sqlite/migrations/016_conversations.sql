-- Conversations: a conversation is the caller's own (manager/conversations/).
--
-- A conversation is keyed by tenant, user, agent and thread name together, so two users (or two
-- agents) that use one thread name have two conversations; a caller with no thread has one per
-- window session key (its MCP session, else its client). base_conversation holds the key and the
-- next turn number: an append reads and bumps it inside its write transaction (BEGIN IMMEDIATE
-- serialises SQLite's writers), so a turn costs the same at 20,000 turns as at 10, and the unique
-- (conversation_id, turn_index) index never sees two writers pick one number.
--
-- The thread's name is `thread_name`, never `thread_id`: to the wall `thread_id` means "visible
-- only inside that thread", and a conversation's turns and compaction summaries must be recall
-- candidates in the same user's other threads. So turns, compaction events and summaries carry
-- `conversation_id` and no thread_id; what is meant for one thread only keeps thread_id
-- (context manifests, tool results, clarify answers and requests, session memory files). A
-- clarify answer is numbered in its conversation too, so it carries both.
--
-- The wall (tenant_guard.sql) scopes base_conversation by user and agent like every table.
--
-- This migration rewrites conversation and summary rows, so it first drops their guard
-- triggers (a migration runs with no tenant bound, and the guards refuse every write then); the
-- runner rebuilds the whole wall right after the last migration.
DROP TRIGGER IF EXISTS base_conversation_memory__tenant_insert;
DROP TRIGGER IF EXISTS base_conversation_memory__tenant_update;
DROP TRIGGER IF EXISTS base_conversation_memory__tenant_delete;
DROP TRIGGER IF EXISTS base_conversation_memory__scope_insert;
DROP TRIGGER IF EXISTS base_conversation_memory__scope_update;
DROP TRIGGER IF EXISTS base_conversation_memory__scope_delete;
DROP TRIGGER IF EXISTS base_summarization_memory__tenant_insert;
DROP TRIGGER IF EXISTS base_summarization_memory__tenant_update;
DROP TRIGGER IF EXISTS base_summarization_memory__tenant_delete;
DROP TRIGGER IF EXISTS base_summarization_memory__scope_insert;
DROP TRIGGER IF EXISTS base_summarization_memory__scope_update;
DROP TRIGGER IF EXISTS base_summarization_memory__scope_delete;

CREATE TABLE base_conversation (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT,
    thread_name TEXT,                    -- the thread's name; NULL for a conversation with no thread
    session_id TEXT,                     -- a conversation with no thread: its window session key
    next_turn INTEGER NOT NULL DEFAULT 1 CHECK (next_turn >= 1),
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- One conversation per key: (tenant, user, agent, thread name) or, with no thread, the session key.
CREATE UNIQUE INDEX conversation_key_uq ON base_conversation
    (tenant_id, ifnull(user_id, ''), ifnull(agent_id, ''), ifnull(thread_name, ''), ifnull(session_id, ''));
-- `memgate turn ls --thread` and `memgate forget --thread`: a thread name's conversations, whoever's.
CREATE INDEX conversation_thread_name_ix ON base_conversation (tenant_id, thread_name);

ALTER TABLE base_conversation_memory ADD COLUMN conversation_id TEXT;
-- who said a turn: the user's or agent's id, or the name an import gave (LoCoMo's "Caroline")
ALTER TABLE base_conversation_memory ADD COLUMN speaker TEXT;
ALTER TABLE base_summarization_memory ADD COLUMN conversation_id TEXT;

-- Existing conversations: one per (tenant, user, agent, thread) of the rows that number turns, or
-- with no thread per (tenant, user, agent, session); turns with neither key had no number and
-- join the caller's one conversation without thread or session.
INSERT INTO base_conversation (id, tenant_id, user_id, agent_id, thread_name, session_id, next_turn, created_by, created_at)
SELECT 'conv_' || lower(hex(randomblob(12))), tenant_id, user_id, agent_id, thread_id,
       CASE WHEN thread_id IS NULL THEN session_id END,
       coalesce(max(turn_index), 0) + 1, 'memgate migration 016', min(created_at)
FROM base_conversation_memory
WHERE event_type IN ('turn', 'clarify_answer', 'compaction')
GROUP BY tenant_id, user_id, agent_id, thread_id, CASE WHEN thread_id IS NULL THEN session_id END;

UPDATE base_conversation_memory
SET conversation_id = (
        SELECT c.id FROM base_conversation c
        WHERE c.tenant_id = base_conversation_memory.tenant_id
          AND c.user_id IS base_conversation_memory.user_id
          AND c.agent_id IS base_conversation_memory.agent_id
          AND c.thread_name IS base_conversation_memory.thread_id
          AND c.session_id IS (CASE WHEN base_conversation_memory.thread_id IS NULL
                                    THEN base_conversation_memory.session_id END)),
    speaker = CASE WHEN event_type = 'turn' AND role = 'user' THEN user_id
                   WHEN event_type = 'turn' AND role = 'assistant' THEN agent_id END
WHERE event_type IN ('turn', 'clarify_answer', 'compaction');

-- A compaction's summary belongs to the conversation its compaction event names.
UPDATE base_summarization_memory
SET conversation_id = (SELECT e.conversation_id FROM base_conversation_memory e
                       WHERE e.id = base_summarization_memory.source_id
                         AND e.tenant_id = base_summarization_memory.tenant_id
                         AND e.event_type = 'compaction'),
    thread_id = NULL
WHERE source_table = 'conversation_memory'
  AND source_id IN (SELECT id FROM base_conversation_memory WHERE event_type = 'compaction');

-- Turns and compaction events are the conversation's, not one thread's.
UPDATE base_conversation_memory SET thread_id = NULL WHERE event_type IN ('turn', 'compaction');

-- Turn numbers are unique per conversation (they were per thread name, across every user: the
-- first user of a name owned it).
DROP INDEX IF EXISTS conversation_turn_uq;
-- (a new name: the Oracle install drops the old index by its name and makes this one)
CREATE UNIQUE INDEX conversation_turn_no_uq ON base_conversation_memory (conversation_id, turn_index)
    WHERE turn_index IS NOT NULL;
CREATE INDEX conversation_events_ix ON base_conversation_memory (conversation_id, event_type, created_at)
    WHERE conversation_id IS NOT NULL;
CREATE INDEX summarization_conversation_ix ON base_summarization_memory (conversation_id)
    WHERE conversation_id IS NOT NULL;
