-- memgate schema v1 for the embedded SQLite backend.
--
-- Base tables are named base_<table>. Nothing but the migration runner and the
-- generated tenant views/triggers (tenant_guard.sql) may name them: manager
-- connections carry an authorizer that refuses any top-level statement that
-- reads or writes a base_ table, so every read goes through the tenant-filtered
-- view <table> and every write through that view's INSTEAD OF triggers.
--
-- Timestamps are UTC ISO-8601 text, 'YYYY-MM-DDTHH:MM:SS.fffZ', so they compare
-- as text. Ids are text chosen by the writer (see manager/ids.py).

CREATE TABLE base_guideline_memory (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    guideline_key TEXT NOT NULL,
    content TEXT NOT NULL,
    content_json TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX guideline_version_uq ON base_guideline_memory
    (tenant_id, guideline_key, ifnull(user_id, ''), ifnull(agent_id, ''), ifnull(thread_id, ''), version);

CREATE TABLE base_persona_memory (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    persona_key TEXT NOT NULL DEFAULT 'default',
    name TEXT NOT NULL,
    content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX persona_version_uq ON base_persona_memory
    (tenant_id, persona_key, ifnull(user_id, ''), ifnull(agent_id, ''), ifnull(thread_id, ''), version);

CREATE TABLE base_toolbox_memory (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    tool_name TEXT NOT NULL,
    tool_schema TEXT NOT NULL,           -- JSON Schema advertised as the tool's inputSchema
    usage_notes TEXT NOT NULL,           -- the tool's description
    tool_handler TEXT NOT NULL,          -- must name a handler in the toolbox allowlist
    access_policy TEXT NOT NULL DEFAULT '{}',  -- JSON: required scopes/roles, allowed commands
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX toolbox_version_uq ON base_toolbox_memory
    (tenant_id, tool_name, ifnull(user_id, ''), ifnull(agent_id, ''), ifnull(thread_id, ''), version);

CREATE TABLE base_entity_memory (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    subject TEXT NOT NULL,
    predicate TEXT NOT NULL,
    content TEXT NOT NULL,
    content_json TEXT,                   -- conditions / structured value
    confidence REAL,
    embedding VECTOR,                    -- float32 little-endian BLOB
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- One row per version of a claim in a scope: two concurrent corrections of the
-- same version cannot both commit (the second gets a uniqueness error).
CREATE UNIQUE INDEX entity_version_uq ON base_entity_memory
    (tenant_id, subject, predicate, ifnull(user_id, ''), ifnull(agent_id, ''), ifnull(thread_id, ''), version);
CREATE INDEX entity_lookup_ix ON base_entity_memory (tenant_id, subject, predicate);

CREATE TABLE base_workflow_memory (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    workflow_key TEXT NOT NULL,
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    steps_json TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX workflow_version_uq ON base_workflow_memory
    (tenant_id, workflow_key, ifnull(user_id, ''), ifnull(agent_id, ''), ifnull(thread_id, ''), version);

CREATE TABLE base_knowledge_base_document (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    collection TEXT NOT NULL DEFAULT 'default',
    title TEXT NOT NULL,
    source_uri TEXT,
    mime_type TEXT,
    content_hash TEXT,
    token_count INTEGER,
    content CLOB,                        -- full text; shown to agents as <LOB>, never read into a result
    metadata_json TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- One document per source in a collection and scope: two ingests of the same file
-- cannot both insert it; a changed file updates this row in place.
CREATE UNIQUE INDEX kb_document_source_uq ON base_knowledge_base_document
    (tenant_id, collection, source_uri, ifnull(user_id, ''), ifnull(agent_id, ''), ifnull(thread_id, ''));

CREATE TABLE base_knowledge_base_chunk (
    -- An explicit rowid: the lexical index (base_kb_chunk_fts) is keyed by it, and VACUUM
    -- may renumber the implicit rowid of a table that has none.
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    document_id TEXT NOT NULL,
    collection TEXT NOT NULL DEFAULT 'default',
    position INTEGER NOT NULL,
    content TEXT NOT NULL,
    token_count INTEGER,
    char_start INTEGER, char_end INTEGER,
    embedding VECTOR,                    -- float32 little-endian BLOB
    embedding_model TEXT,                -- the Embedder.name that made `embedding`; others are not compared
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX kb_chunk_doc_ix ON base_knowledge_base_chunk (tenant_id, document_id, position);
CREATE INDEX kb_chunk_collection_ix ON base_knowledge_base_chunk (tenant_id, collection);

-- The lexical index of chunks. An FTS5 table cannot be a tenant view, so it
-- keeps tenant_id as an UNINDEXED column and is read only through kb_chunk_match, which
-- filters it by app_tenant() inside the view: MATCH and bm25() push down into the view,
-- and ORDER BY/LIMIT in the caller apply after the tenant filter, so ranking only ever
-- sees the tenant's rows. Its name starts with base_, so walled SQL cannot name it (nor
-- its shadow tables); the triggers below keep it in step with every chunk write.
CREATE VIRTUAL TABLE base_kb_chunk_fts USING fts5(
    content, tenant_id UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2');

CREATE TRIGGER base_knowledge_base_chunk__fts_insert AFTER INSERT ON base_knowledge_base_chunk
BEGIN
    INSERT INTO base_kb_chunk_fts (rowid, content, tenant_id) VALUES (NEW.seq, NEW.content, NEW.tenant_id);
END;

CREATE TRIGGER base_knowledge_base_chunk__fts_update AFTER UPDATE ON base_knowledge_base_chunk
WHEN NEW.content IS NOT OLD.content OR NEW.seq IS NOT OLD.seq
BEGIN
    DELETE FROM base_kb_chunk_fts WHERE rowid = OLD.seq;
    INSERT INTO base_kb_chunk_fts (rowid, content, tenant_id) VALUES (NEW.seq, NEW.content, NEW.tenant_id);
END;

CREATE TRIGGER base_knowledge_base_chunk__fts_delete AFTER DELETE ON base_knowledge_base_chunk
BEGIN
    DELETE FROM base_kb_chunk_fts WHERE rowid = OLD.seq;
END;

-- bm25() is smaller for better matches. Use: SELECT seq, bm25 FROM kb_chunk_match
-- WHERE fts MATCH :expr ORDER BY bm25 LIMIT :n.
CREATE VIEW kb_chunk_match AS
SELECT rowid AS seq, base_kb_chunk_fts AS fts, bm25(base_kb_chunk_fts) AS bm25
FROM base_kb_chunk_fts
WHERE tenant_id = app_tenant();

CREATE TABLE base_conversation_memory (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    event_type TEXT NOT NULL,            -- turn | tool_call | tool_result | context_manifest | clarify_answer
    role TEXT,
    content TEXT,
    content_json TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX conversation_thread_ix ON base_conversation_memory (tenant_id, thread_id, created_at);

CREATE TABLE base_summarization_memory (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    title TEXT NOT NULL,
    content TEXT NOT NULL,
    period_start TEXT, period_end TEXT,
    source_versions_json TEXT,           -- JSON list of {table, id, version} the summary was built from
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE base_memory_store (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    store_key TEXT NOT NULL,             -- e.g. agent:<agent>, user:<user>, context:<store>:<key>:<value>
    scope TEXT NOT NULL,                 -- agent | user | session | shared | global | context
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX memory_store_uq ON base_memory_store (tenant_id, store_key);

CREATE TABLE base_memory_file (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    store_id TEXT NOT NULL REFERENCES base_memory_store (id),
    path TEXT NOT NULL,                  -- canonical, under /memories (manager/files/paths.py)
    content TEXT NOT NULL,
    size_chars INTEGER NOT NULL,         -- what the caps count
    size_bytes INTEGER NOT NULL,         -- UTF-8 bytes: what `view` lists, as the SDK lists st_size
    version INTEGER NOT NULL DEFAULT 1,  -- bumped on every write; writers compare-and-set on it
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_by TEXT,
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- A memory file is deleted for real (no deleted_at): `delete` and `memgate memory rm`
-- must leave nothing behind. One path per store; a rename is an update of `path`.
CREATE UNIQUE INDEX memory_file_path_uq ON base_memory_file (tenant_id, store_id, path);

CREATE TABLE base_mcp_call_log (
    call_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    called_at TEXT NOT NULL,
    principal TEXT,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    client_name TEXT, client_version TEXT,
    session_id TEXT,
    transport TEXT,
    tool_name TEXT NOT NULL,
    handler TEXT,
    toolbox_row_id TEXT,
    toolbox_row_version INTEGER,
    argument_digest TEXT,                -- sha256 of the canonical JSON arguments
    arguments_json TEXT,                 -- the arguments, clipped (what the agent asked)
    status TEXT NOT NULL CHECK (status IN ('ok', 'denied', 'invalid', 'error', 'timeout')),
    error_class TEXT,                    -- the error's class name only; detail stays in the operator log
    rows_returned INTEGER,
    truncated INTEGER,
    result_tokens INTEGER,
    result_text TEXT,                    -- what the agent saw, clipped
    cited_ids TEXT,                      -- JSON list of memory ids the result cited
    duration_ms REAL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX mcp_call_log_time_ix ON base_mcp_call_log (tenant_id, called_at);

-- Claims are never edited in place: only lifecycle columns may change.
CREATE TRIGGER base_entity_memory_immutable BEFORE UPDATE ON base_entity_memory
WHEN NEW.id IS NOT OLD.id OR NEW.subject IS NOT OLD.subject OR NEW.predicate IS NOT OLD.predicate
  OR NEW.content IS NOT OLD.content OR NEW.content_json IS NOT OLD.content_json
  OR NEW.version IS NOT OLD.version OR NEW.valid_from IS NOT OLD.valid_from
  OR NEW.created_at IS NOT OLD.created_at
BEGIN
    SELECT RAISE(ABORT, 'memgate: a claim version is immutable; insert the next version instead');
END;

-- The call log is append-only.
CREATE TRIGGER base_mcp_call_log_append_only BEFORE UPDATE ON base_mcp_call_log
BEGIN
    SELECT RAISE(ABORT, 'memgate: mcp_call_log is append-only');
END;
