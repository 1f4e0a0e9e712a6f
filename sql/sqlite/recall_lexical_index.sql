-- One tenant's recall index (template; manager/backend/sqlite/lexical.py fills it in beside the
-- tenant's chunk index, kb_lexical_index.sql, with the same slot). {slot} is the tenant's number in
-- base_kb_lexical_index, {tenant} its id as an SQL literal.
--
-- Template version 2 (manager/backend/sqlite/lexical.py RECALL_TEMPLATE_VERSION; bump it with any
-- change here, and existing indexes are rebuilt by the next migration): the chunk index's tokenizer
-- and, from version 2 (migration 030), its merge settings.
--
-- An external-content FTS5 table over base_conversation_recall, keyed by its seq: the text is
-- stored once, the index holds only this tenant's rows, so a MATCH walks only its postings and
-- BM25's statistics are its own. Triggers that fire only for the tenant's rows keep it in step.
-- Walled SQL reaches it only through recall_match_{slot}, which keeps the rows in the caller's scope
-- (user and agent: recall rows have no thread), and through the connection's TEMP view recall_match.
CREATE VIRTUAL TABLE base_recall_fts_{slot} USING fts5(
    content, content = 'base_conversation_recall', content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2 tokenchars _');

-- How FTS5 merges the index's segments (https://www.sqlite.org/fts5.html, "Special INSERT Commands";
-- kept in its config table, so they hold for every connection). Every captured turn and every small
-- ingest is its own transaction and adds a segment, and a query reads every segment: with FTS5's
-- defaults (automerge 4, crisismerge 16) a busy index held 13 on average and up to 23, and its BM25
-- leg cost 1.7-2.0x what it cost on the same index merged into one. Merging two segments of a
-- level instead of four, and a level at once when it reaches four instead of sixteen, halves that
-- (about 6, at most 11) for no measurable cost per write (docs/benchmarks.md, "Lexical indexes");
-- `memgate optimize` merges an index into one segment (manager/backend/sqlite/lexical_merge.py).
INSERT INTO base_recall_fts_{slot} (base_recall_fts_{slot}, rank) VALUES ('automerge', 2);
INSERT INTO base_recall_fts_{slot} (base_recall_fts_{slot}, rank) VALUES ('crisismerge', 4);

CREATE TRIGGER base_conversation_recall__fts_{slot}_insert AFTER INSERT ON base_conversation_recall
WHEN NEW.tenant_id = {tenant}
BEGIN
    INSERT INTO base_recall_fts_{slot} (rowid, content) VALUES (NEW.seq, NEW.content);
END;

CREATE TRIGGER base_conversation_recall__fts_{slot}_update AFTER UPDATE OF content, seq, tenant_id
ON base_conversation_recall
WHEN (OLD.tenant_id = {tenant} OR NEW.tenant_id = {tenant})
 AND (NEW.content IS NOT OLD.content OR NEW.seq IS NOT OLD.seq OR NEW.tenant_id IS NOT OLD.tenant_id)
BEGIN
    INSERT INTO base_recall_fts_{slot} (base_recall_fts_{slot}, rowid, content)
    SELECT 'delete', OLD.seq, OLD.content WHERE OLD.tenant_id = {tenant};
    INSERT INTO base_recall_fts_{slot} (rowid, content)
    SELECT NEW.seq, NEW.content WHERE NEW.tenant_id = {tenant};
END;

CREATE TRIGGER base_conversation_recall__fts_{slot}_delete AFTER DELETE ON base_conversation_recall
WHEN OLD.tenant_id = {tenant}
BEGIN
    INSERT INTO base_recall_fts_{slot} (base_recall_fts_{slot}, rowid, content) VALUES ('delete', OLD.seq, OLD.content);
END;

-- FTS5 serves a statement ordered by rank (bm25, smaller is better) in that order, so a reader that
-- stops early looks up only the rows it reads. The view joins each match to its row, checks the
-- caller's scope as the generated conversation_recall view does, and brings the columns recall's
-- policy filters on (user, agent, conversation) in the same lookup.
CREATE VIEW recall_match_{slot} AS
SELECT f.rowid AS seq, f.base_recall_fts_{slot} AS fts, f.rank AS bm25,
       r.user_id, r.agent_id, r.conversation_id
FROM base_recall_fts_{slot} f
JOIN base_conversation_recall r ON r.seq = f.rowid
WHERE r.tenant_id = {tenant} AND r.tenant_id = app_tenant()
  AND (r.user_id IS NULL OR r.user_id = app_user())
  AND (r.agent_id IS NULL OR r.agent_id = app_agent());

INSERT INTO base_recall_fts_{slot} (rowid, content)
SELECT seq, content FROM base_conversation_recall WHERE tenant_id = {tenant};
