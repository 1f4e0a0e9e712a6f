-- Per-tenant lexical indexes merge their segments sooner: the templates sql/sqlite/kb_lexical_index.sql
-- (version 3) and sql/sqlite/recall_lexical_index.sql (version 2) set FTS5's automerge to 2 and its
-- crisismerge to 4. Every captured turn and every small ingest is one transaction and adds a segment,
-- and a query reads every segment: with FTS5's defaults a busy index held about 13 and its BM25 leg
-- cost 1.7-2.0x what it cost merged into one (docs/benchmarks.md, "Lexical indexes").
--
-- Nothing to change in a table here: manager/backend/sqlite/lexical.py rebuilds, from the chunk and
-- recall tables and in this same transaction, every index built from an older template (the rebuilt
-- index starts as few segments, and keeps the new settings in its config table).
SELECT 1;
