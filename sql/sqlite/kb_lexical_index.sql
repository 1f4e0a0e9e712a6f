-- One tenant's lexical index (template; manager/backend/sqlite/lexical.py fills it in).
-- {slot} is the tenant's number in base_kb_lexical_index, {tenant} its id as an SQL literal.
--
-- Template version 3 (manager/backend/sqlite/lexical.py TEMPLATE_VERSION; bump it with any change
-- here, and existing indexes are rebuilt by the next migration): words are porter-stemmed, and an
-- underscore is part of a word, so an identifier such as lru_cache or __doc__ is one term (2,
-- migration 015); its segments are merged sooner than FTS5's defaults would (3, migration 030).
--
-- An external-content FTS5 table over the chunk table: the text is stored once, in
-- base_knowledge_base_chunk, and the index holds only this tenant's rows, so a MATCH walks only
-- its postings and BM25's statistics are its own. Triggers that fire only for the tenant's rows
-- keep it in step with every chunk write (an external-content index is told the old text to
-- remove it). Walled SQL reaches it only through kb_chunk_match_{slot}, which keeps the rows
-- whose chunk is in the caller's scope, and through the connection's TEMP view kb_chunk_match
-- that points at the bound tenant's view.
CREATE VIRTUAL TABLE base_kb_fts_{slot} USING fts5(
    content, content = 'base_knowledge_base_chunk', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2 tokenchars _');

-- How FTS5 merges the index's segments (https://www.sqlite.org/fts5.html, "Special INSERT Commands";
-- kept in its config table, so they hold for every connection). Every captured turn and every small
-- ingest is its own transaction and adds a segment, and a query reads every segment: with FTS5's
-- defaults (automerge 4, crisismerge 16) a busy index held 13 on average and up to 23, and its BM25
-- leg cost 1.7-2.0x what it cost on the same index merged into one. Merging two segments of a
-- level instead of four, and a level at once when it reaches four instead of sixteen, halves that
-- (about 6, at most 11) for no measurable cost per write (docs/benchmarks.md, "Lexical indexes");
-- `memgate optimize` merges an index into one segment (manager/backend/sqlite/lexical_merge.py).
INSERT INTO base_kb_fts_{slot} (base_kb_fts_{slot}, rank) VALUES ('automerge', 2);
INSERT INTO base_kb_fts_{slot} (base_kb_fts_{slot}, rank) VALUES ('crisismerge', 4);

CREATE TRIGGER base_knowledge_base_chunk__fts_{slot}_insert AFTER INSERT ON base_knowledge_base_chunk
WHEN NEW.tenant_id = {tenant}
BEGIN
    INSERT INTO base_kb_fts_{slot} (rowid, content) VALUES (NEW.seq, NEW.content);
END;

-- One update trigger, so the old text leaves before the new one enters (SQLite does not promise
-- an order between two triggers). Only a change of text, key or tenant touches the index: the
-- generated view's INSTEAD OF trigger sets every column, also when only the embedding changed.
CREATE TRIGGER base_knowledge_base_chunk__fts_{slot}_update AFTER UPDATE OF content, seq, tenant_id
ON base_knowledge_base_chunk
WHEN (OLD.tenant_id = {tenant} OR NEW.tenant_id = {tenant})
 AND (NEW.content IS NOT OLD.content OR NEW.seq IS NOT OLD.seq OR NEW.tenant_id IS NOT OLD.tenant_id)
BEGIN
    INSERT INTO base_kb_fts_{slot} (base_kb_fts_{slot}, rowid, content)
    SELECT 'delete', OLD.seq, OLD.content WHERE OLD.tenant_id = {tenant};
    INSERT INTO base_kb_fts_{slot} (rowid, content)
    SELECT NEW.seq, NEW.content WHERE NEW.tenant_id = {tenant};
END;

CREATE TRIGGER base_knowledge_base_chunk__fts_{slot}_delete AFTER DELETE ON base_knowledge_base_chunk
WHEN OLD.tenant_id = {tenant}
BEGIN
    INSERT INTO base_kb_fts_{slot} (base_kb_fts_{slot}, rowid, content) VALUES ('delete', OLD.seq, OLD.content);
END;

-- bm25 (FTS5's rank, which is bm25() unless configured otherwise) is smaller for better matches;
-- a statement that orders by it is served in that order by FTS5 itself, so a LIMIT or a reader
-- that stops early looks up only the chunks it reads. The view joins each match to its chunk, so
-- the chunk's scope is checked (as in the generated knowledge_base_chunk view) and the columns a
-- search filters on come with it in the same lookup; the tenant check repeats what the table
-- already is, so a connection pointed at the wrong slot still sees nothing.
CREATE VIEW kb_chunk_match_{slot} AS
SELECT f.rowid AS seq, f.base_kb_fts_{slot} AS fts, f.rank AS bm25,
       c.collection, c.document_id, c.deleted_at, c.valid_from, c.valid_until
FROM base_kb_fts_{slot} f
JOIN base_knowledge_base_chunk c ON c.seq = f.rowid
WHERE c.tenant_id = {tenant} AND c.tenant_id = app_tenant()
  AND (c.user_id IS NULL OR c.user_id = app_user())
  AND (c.agent_id IS NULL OR c.agent_id = app_agent())
  AND (c.thread_id IS NULL OR c.thread_id = app_thread());

INSERT INTO base_kb_fts_{slot} (rowid, content)
SELECT seq, content FROM base_knowledge_base_chunk WHERE tenant_id = {tenant};
