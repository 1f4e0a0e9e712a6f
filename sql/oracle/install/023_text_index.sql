-- 023_text_index.sql: the lexical index of chunks (SQLite: base_kb_chunk_fts + its triggers).
-- Run by: MEMGATE_OWNER (needs EXECUTE on CTXSYS.CTX_DDL, 010). Re-runnable: the preference and
-- the index are created only when USER's dictionary does not have them.
--
-- A CONTEXT index on knowledge_base_chunk.content, read with CONTAINS(...) > 0 and SCORE()
-- (kb_lexical.sql). It is a composite domain index: FILTER BY tenant_id, collection lets the
-- structured predicates (the VPD tenant predicate, the collection filter) be evaluated inside the
-- text index ("a composite domain index (CDI) ... also indexes and processes FILTER BY and
-- ORDER BY structured columns", Oracle Text Reference 26, CREATE INDEX).
--
-- Sync: SQLite's FTS rows change in the same transaction as the chunk. A CONTEXT index does not:
-- "A CONTEXT index is not transactional ... For inserts and updates, the new information is not
-- visible to text searches until an index synchronization has occurred" (Text Application
-- Developer's Guide 23, Creating a CONTEXT Index). Since 23ai the default is automatic
-- maintenance, a background sync at an interval the database picks: the auto-determined
-- interval cannot be overridden, and such indexes accept no other SYNC setting (Text Application
-- Developer's Guide, Using Automatic Maintenance for an Index; read in the Japanese 26 edition,
-- https://docs.oracle.com/cd/G11854_01/ccapp/using-automatic-maintenance-index.html). memgate searches
-- right after an ingest, so this index asks for SYNC (ON COMMIT) with MAINTENANCE MANUAL: a chunk
-- is searchable as soon as its transaction commits. NOT VERIFIED on a live database: the exact
-- spelling "MAINTENANCE MANUAL" next to SYNC (ON COMMIT) was not found in the docs corpus. If
-- 26ai refuses it, drop both words (automatic maintenance) and accept a short lag, or keep
-- MAINTENANCE MANUAL with SYNC (EVERY ...). Deletes are immediate either way.
--
-- Ranking caveat, as on SQLite: Oracle Text's score uses statistics of the whole index, all
-- tenants together; results expose ranks, never raw scores. Per-tenant indexes (a LOCAL index on
-- a list-partitioned table) would close that side channel.
DECLARE
  n PLS_INTEGER;
BEGIN
  -- BASIC_LEXER with base letters: accents fold, as SQLite's remove_diacritics 2 does.
  -- (Stemming is a query operator here ($word), not an index option as porter is in FTS5.)
  SELECT COUNT(*) INTO n FROM ctx_user_preferences WHERE pre_name = 'MEMGATE_LEXER';
  IF n = 0 THEN
    CTX_DDL.CREATE_PREFERENCE('memgate_lexer', 'BASIC_LEXER');
    CTX_DDL.SET_ATTRIBUTE('memgate_lexer', 'BASE_LETTER', 'YES');
  END IF;
  SELECT COUNT(*) INTO n FROM user_indexes WHERE index_name = 'KB_CHUNK_TEXT_IX';
  IF n = 0 THEN
    EXECUTE IMMEDIATE q'[CREATE INDEX kb_chunk_text_ix ON knowledge_base_chunk (content)
      INDEXTYPE IS CTXSYS.CONTEXT
      FILTER BY tenant_id, collection
      PARAMETERS ('LEXER memgate_lexer MAINTENANCE MANUAL SYNC (ON COMMIT)')]';
  END IF;
END;
/
