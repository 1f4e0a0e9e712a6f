-- 023_text_index.sql: the lexical index of chunks (SQLite: base_kb_chunk_fts and its triggers).
-- Run by: MEMGATE_OWNER (needs EXECUTE on CTXSYS.CTX_DDL and the CTXAPP role, 010). Re-runnable:
-- the preference and the index are created only when the owner's dictionary lacks them.
--
-- A CONTEXT index on knowledge_base_chunk.content, read with CONTAINS(...) > 0 and SCORE()
-- (kb_lexical.sql). FILTER BY tenant_id, collection makes it a composite domain index, so the
-- structured predicates (VPD's tenant predicate, the collection filter) can be evaluated inside
-- the text index ("a composite domain index (CDI) ... also indexes and processes FILTER BY and
-- ORDER BY structured columns", Oracle Text Reference 26, CREATE INDEX).
--
-- Maintenance, stated explicitly: SQLite's FTS rows change in the chunk's own transaction. A
-- CONTEXT index does not: "A CONTEXT index is not transactional ... For inserts and updates, the
-- new information is not visible to text searches until an index synchronization has occurred"
-- (Text Application Developer's Guide 23, Creating a CONTEXT Index). On 23ai and 26ai an index
-- created without a maintenance clause gets automatic maintenance, which syncs in the background
-- at intervals the database picks and allows no other SYNC setting (Text Application Developer's
-- Guide 23, Using Automatic Maintenance for an Index: such an index combines automatic
-- maintenance with SYNC (MANUAL), and no other SYNC setting is compatible with it). memgate searches right after an ingest, so the index
-- asks for MAINTENANCE MANUAL with SYNC (ON COMMIT): a chunk is searchable once its transaction
-- commits, at the cost of a sync per committing ingest. Deletes are immediate either way.
-- To prefer the background mode (fewer, larger syncs; a short lag before new chunks match),
-- drop the index and create it with 'MAINTENANCE AUTO' in place of both clauses.
-- NOT VERIFIED on a live database: written from the 23ai documentation. Before schema version 4
-- no Oracle install got this far (022 did not compile), so no existing index needs changing.
-- No stopwords (CTXSYS.EMPTY_STOPLIST), as SQLite's FTS5 has none: every word is indexed, and a
-- query of only common words still matches. Unlike FTS5's porter tokenizer the index does not
-- stem: "policy" does not match "policies" here.
--
-- Ranking caveat, as on SQLite: Oracle Text's score uses statistics of the whole index, every
-- tenant's chunks together; results expose ranks, never raw scores.
DECLARE
  n PLS_INTEGER;
BEGIN
  -- BASIC_LEXER with base letters: accents fold, as SQLite's remove_diacritics 2 does.
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
      PARAMETERS ('LEXER memgate_lexer STOPLIST CTXSYS.EMPTY_STOPLIST MAINTENANCE MANUAL SYNC (ON COMMIT)')]';
  END IF;
END;
/
