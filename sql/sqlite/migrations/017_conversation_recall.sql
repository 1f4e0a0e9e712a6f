-- Recall across conversations (manager/conversations/recall*.py): what a user said in one conversation,
-- found in the next.
--
-- base_conversation_recall holds one row per turn and per compaction summary, written in the same
-- transaction as it: the text recall ranks ("Caroline (8 May 2023): I went to the LGBTQ support
-- group"), who said it, when, where (its conversation and turn numbers) and its embedding. It is
-- shaped like the knowledge base's chunk table so the same machinery serves it: an INTEGER PRIMARY KEY
-- `seq` that an external-content FTS5 index per tenant is keyed by (VACUUM may renumber an implicit
-- rowid), built from the template sql/sqlite/recall_lexical_index.sql beside the tenant's chunk index
-- (manager/backend/sqlite/lexical.py), and the in-process vector cache, refreshed by the change counters
-- below. Its scope is its source's user and agent; it has no thread_id, as turns have none.
--
-- A recall row is a copy of its source's text: it goes when its source goes (the delete triggers below,
-- so `memgate expire` and any delete take it), and `memgate forget` reaches it by scope and by
-- reference (manager/retention/registry.py).
CREATE TABLE base_conversation_recall (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,             -- the turn's (conversation_memory) or summary's id
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT,
    conversation_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('turn', 'summary')),
    turn_index INTEGER,                  -- a turn's number; a summary's last turn
    first_turn INTEGER,                  -- a summary's first turn
    speaker TEXT,
    said_at TEXT NOT NULL,               -- when the turn was said (a summary: its last turn's time)
    content TEXT NOT NULL,               -- what recall ranks: "Speaker (8 May 2023): text"
    embedding VECTOR,                    -- float32 little-endian BLOB
    embedding_model TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX conversation_recall_conversation_ix ON base_conversation_recall (tenant_id, conversation_id, turn_index);

-- The turns and summaries already stored, as recall text (the date as a window shows it: "8 May 2023").
-- They have no embedding yet: `memgate reembed` gives them one; until then only the lexical leg finds
-- them. Their tenants' indexes are built (and filled from this table) when the migration ends
-- (manager/backend/sqlite/lexical.py index_all_tenants).
INSERT INTO base_conversation_recall
    (id, tenant_id, user_id, agent_id, conversation_id, kind, turn_index, first_turn, speaker, said_at, content)
SELECT id, tenant_id, user_id, agent_id, conversation_id, 'turn', turn_index, NULL, coalesce(speaker, role),
       valid_from,
       coalesce(speaker, role) || ' (' || CAST(strftime('%d', valid_from) AS INTEGER) || ' '
       || CASE strftime('%m', valid_from) WHEN '01' THEN 'January' WHEN '02' THEN 'February' WHEN '03' THEN 'March'
              WHEN '04' THEN 'April' WHEN '05' THEN 'May' WHEN '06' THEN 'June' WHEN '07' THEN 'July'
              WHEN '08' THEN 'August' WHEN '09' THEN 'September' WHEN '10' THEN 'October'
              WHEN '11' THEN 'November' ELSE 'December' END
       || ' ' || strftime('%Y', valid_from) || '): ' || content
FROM base_conversation_memory
WHERE event_type = 'turn' AND conversation_id IS NOT NULL AND content IS NOT NULL AND deleted_at IS NULL
ORDER BY tenant_id, conversation_id, turn_index;

-- No recall row without its tenant's lexical index: its triggers are what index it.
CREATE TRIGGER base_conversation_recall__lexical_index BEFORE INSERT ON base_conversation_recall
WHEN NOT EXISTS (SELECT 1 FROM base_kb_lexical_index WHERE tenant_id = NEW.tenant_id)
BEGIN
    SELECT RAISE(ABORT, 'no lexical index for the tenant');
END;

-- A recall row goes with its source.
CREATE TRIGGER base_conversation_memory__recall_delete AFTER DELETE ON base_conversation_memory
BEGIN
    DELETE FROM base_conversation_recall WHERE id = OLD.id;
END;
CREATE TRIGGER base_summarization_memory__recall_delete AFTER DELETE ON base_summarization_memory
BEGIN
    DELETE FROM base_conversation_recall WHERE id = OLD.id;
END;

-- Which template version each tenant's recall index was built from (0: none yet); lexical.py builds
-- and rebuilds it as it does the chunk index.
ALTER TABLE base_kb_lexical_index ADD COLUMN recall_version INTEGER NOT NULL DEFAULT 0;

-- The recall rows' change counters, as base_kb_generation is the chunks' (migration 011): `generation`
-- on every write, `rewrites` on one that is not an append, so the vector cache grows by the rows
-- appended or is rebuilt. An operator table; walled sessions read their tenant's through
-- recall_generation.
CREATE TABLE base_recall_generation (
    tenant_id TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,
    rewrites INTEGER NOT NULL DEFAULT 0
);

CREATE TRIGGER base_conversation_recall__generation_insert AFTER INSERT ON base_conversation_recall
BEGIN
    INSERT INTO base_recall_generation (tenant_id, generation) VALUES (NEW.tenant_id, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET generation = generation + 1;
END;

CREATE TRIGGER base_conversation_recall__generation_insert_below AFTER INSERT ON base_conversation_recall
WHEN NEW.seq < (SELECT max(seq) FROM base_conversation_recall)
BEGIN
    UPDATE base_recall_generation SET rewrites = rewrites + 1 WHERE tenant_id = NEW.tenant_id;
END;

CREATE TRIGGER base_conversation_recall__generation_update AFTER UPDATE ON base_conversation_recall
BEGIN
    INSERT INTO base_recall_generation (tenant_id, generation, rewrites) VALUES (OLD.tenant_id, 1, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET generation = generation + 1, rewrites = rewrites + 1;
    INSERT INTO base_recall_generation (tenant_id, generation, rewrites) VALUES (NEW.tenant_id, 1, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET generation = generation + 1, rewrites = rewrites + 1;
END;

CREATE TRIGGER base_conversation_recall__generation_delete AFTER DELETE ON base_conversation_recall
BEGIN
    INSERT INTO base_recall_generation (tenant_id, generation, rewrites) VALUES (OLD.tenant_id, 1, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET generation = generation + 1, rewrites = rewrites + 1;
END;

CREATE VIEW recall_generation AS
SELECT generation, rewrites FROM base_recall_generation WHERE tenant_id = app_tenant();
