-- Per-tenant lexical indexes and the knowledge base's change counter.
--
-- The shared FTS5 table base_kb_chunk_fts matched every tenant's rows before the tenant
-- filter, and its BM25 statistics (row count, average length, how many rows hold a word)
-- spanned tenants, so one tenant's documents moved another's scores. It also stored each
-- chunk's text a second time. It is replaced by one external-content FTS5 table per tenant
-- (sql/sqlite/kb_lexical_index.sql, built by manager/backend/sqlite/lexical.py for every tenant
-- with chunks when this migration runs, and for a new tenant when it first opens a session):
-- the text is stored once, in base_knowledge_base_chunk, and a tenant's MATCH and BM25 see only
-- its own rows.
DROP VIEW IF EXISTS kb_chunk_match;
DROP TRIGGER IF EXISTS base_knowledge_base_chunk__fts_insert;
DROP TRIGGER IF EXISTS base_knowledge_base_chunk__fts_update;
DROP TRIGGER IF EXISTS base_knowledge_base_chunk__fts_delete;
DROP TABLE IF EXISTS base_kb_chunk_fts;

-- Which tenant's index is base_kb_fts_<slot>. An operator table: no walled view reaches it.
CREATE TABLE base_kb_lexical_index (
    tenant_id TEXT PRIMARY KEY,
    slot INTEGER NOT NULL UNIQUE
);

-- No chunk without its tenant's lexical index: its triggers are what index it.
CREATE TRIGGER base_knowledge_base_chunk__lexical_index BEFORE INSERT ON base_knowledge_base_chunk
WHEN NOT EXISTS (SELECT 1 FROM base_kb_lexical_index WHERE tenant_id = NEW.tenant_id)
BEGIN
    SELECT RAISE(ABORT, 'no lexical index for the tenant');
END;

-- Two numbers per tenant that chunk writes bump, in the same transaction: `generation` on
-- every write, `rewrites` on an update, a delete, or an insert below the highest seq (one that
-- is not an append). In-process caches of a tenant's embeddings
-- (manager/backend/sqlite/vector_cache.py) compare them on every search, so a write by any
-- process on the file is seen on the next query: when only `generation` moved, the chunks
-- since the cache was built are appends, read by seq; otherwise it is rebuilt. An operator
-- table; walled sessions read their own tenant's numbers through kb_generation.
CREATE TABLE base_kb_generation (
    tenant_id TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,
    rewrites INTEGER NOT NULL DEFAULT 0
);

INSERT INTO base_kb_generation (tenant_id, generation)
SELECT DISTINCT tenant_id, 1 FROM base_knowledge_base_chunk;

CREATE TRIGGER base_knowledge_base_chunk__generation_insert AFTER INSERT ON base_knowledge_base_chunk
BEGIN
    INSERT INTO base_kb_generation (tenant_id, generation) VALUES (NEW.tenant_id, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET generation = generation + 1;
END;

CREATE TRIGGER base_knowledge_base_chunk__generation_insert_below AFTER INSERT ON base_knowledge_base_chunk
WHEN NEW.seq < (SELECT max(seq) FROM base_knowledge_base_chunk)
BEGIN
    UPDATE base_kb_generation SET rewrites = rewrites + 1 WHERE tenant_id = NEW.tenant_id;
END;

CREATE TRIGGER base_knowledge_base_chunk__generation_update AFTER UPDATE ON base_knowledge_base_chunk
BEGIN
    INSERT INTO base_kb_generation (tenant_id, generation, rewrites) VALUES (OLD.tenant_id, 1, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET generation = generation + 1, rewrites = rewrites + 1;
    INSERT INTO base_kb_generation (tenant_id, generation, rewrites) VALUES (NEW.tenant_id, 1, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET generation = generation + 1, rewrites = rewrites + 1;
END;

CREATE TRIGGER base_knowledge_base_chunk__generation_delete AFTER DELETE ON base_knowledge_base_chunk
BEGIN
    INSERT INTO base_kb_generation (tenant_id, generation, rewrites) VALUES (OLD.tenant_id, 1, 1)
    ON CONFLICT (tenant_id) DO UPDATE SET generation = generation + 1, rewrites = rewrites + 1;
END;

CREATE VIEW kb_generation AS
SELECT generation, rewrites FROM base_kb_generation WHERE tenant_id = app_tenant();
