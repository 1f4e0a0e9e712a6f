-- 023_text_index.sql: the lexical index of chunks (SQLite: base_kb_chunk_fts and its triggers).
-- Run by: MEMGATE_OWNER (needs EXECUTE on CTXSYS.CTX_DDL and the CTXAPP role, 010). Re-runnable:
-- the preference and the index are created only when the owner's dictionary lacks them (an index
-- that is there but not VALID is dropped first, below).
--
-- A CONTEXT index on knowledge_base_chunk.content, read with CONTAINS(...) > 0 and SCORE()
-- (kb_lexical.sql). FILTER BY tenant_id makes it a composite domain index, so VPD's tenant
-- predicate can be evaluated inside the text index ("a composite domain index (CDI) ... also
-- indexes and processes FILTER BY and ORDER BY structured columns", Oracle Text Reference 26,
-- CREATE INDEX). A FILTER BY column is stored as SDATA in VARCHAR2(249 BYTE) ("SDATA sections
-- store tokens in a table column of type VARCHAR2 (249 BYTE)", Oracle Text Reference 26, Token
-- Limitations for Oracle Text Indexes), and a wider column is refused: DRG-11309 "invalid filter
-- by column ... column size is at most 249 bytes long" (Database Error Messages), raised inside
-- ORA-29855. So only tenant_id, 200 bytes on this table (020), is a FILTER BY column; collection
-- (256 bytes, any text) is filtered outside the index, through kb_chunk_collection_ix (021).
-- tests/backend/oracle/test_static_first_contact.py checks every FILTER BY column's width.
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
-- No stopwords (CTXSYS.EMPTY_STOPLIST), as SQLite's FTS5 has none: every word is indexed, and a
-- query of only common words still matches. Unlike FTS5's porter tokenizer the index does not
-- stem: "policy" does not match "policies" here.
--
-- An index an earlier run left unusable is made again, not skipped: a CREATE INDEX that failed
-- (the FILTER BY collection of schema version 4 as first written, which no database accepted)
-- can leave the index behind with DOMIDX_STATUS or DOMIDX_OPSTATUS FAILED, and "If you try to
-- create an index with an invalid PARAMETERS string, then you still need to drop it before you
-- can re-create it" (Text Application Developer's Guide 26, 5.2 Dropping an Index). So an index
-- that is not VALID in USER_INDEXES is dropped, with FORCE when a plain DROP INDEX fails ("Use
-- it only when a regular call to DROP INDEX fails", Oracle Text Reference 26, DROP INDEX), and
-- created again; a VALID one is left as it is, so a re-run costs nothing. The same run narrows
-- tenant_id to 200 bytes on a table an earlier schema made 256 wide (ORA-01441 if a stored
-- tenant id were longer; memgate never writes one, manager/identity.py).
-- NOT VERIFIED on a live database: written from the 23ai/26ai documentation. The first
-- `memgate doctor` on a database (its text index check) and the Oracle half of
-- tests/backend/contract/test_install_checks.py settle it.
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
  -- an index left FAILED (or otherwise not VALID) by an earlier run: drop it, FORCE if need be
  SELECT COUNT(*) INTO n FROM user_indexes
   WHERE index_name = 'KB_CHUNK_TEXT_IX'
     AND (status <> 'VALID' OR NVL(domidx_status, 'VALID') <> 'VALID' OR NVL(domidx_opstatus, 'VALID') <> 'VALID');
  IF n > 0 THEN
    BEGIN
      EXECUTE IMMEDIATE 'DROP INDEX kb_chunk_text_ix';
    EXCEPTION
      WHEN OTHERS THEN
        EXECUTE IMMEDIATE 'DROP INDEX kb_chunk_text_ix FORCE';
    END;
  END IF;
  -- a FILTER BY column must fit SDATA's 249 bytes: tenant_id of a table made before it was 200
  SELECT COUNT(*) INTO n FROM user_tab_columns
   WHERE table_name = 'KNOWLEDGE_BASE_CHUNK' AND column_name = 'TENANT_ID'
     AND (data_length > 200 OR char_used = 'C');
  IF n > 0 THEN
    EXECUTE IMMEDIATE 'ALTER TABLE knowledge_base_chunk MODIFY (tenant_id VARCHAR2(200 BYTE))';
  END IF;
  SELECT COUNT(*) INTO n FROM user_indexes WHERE index_name = 'KB_CHUNK_TEXT_IX';
  IF n = 0 THEN
    EXECUTE IMMEDIATE q'[CREATE INDEX kb_chunk_text_ix ON knowledge_base_chunk (content)
      INDEXTYPE IS CTXSYS.CONTEXT
      FILTER BY tenant_id
      PARAMETERS ('LEXER memgate_lexer STOPLIST CTXSYS.EMPTY_STOPLIST MAINTENANCE MANUAL SYNC (ON COMMIT)')]';
  END IF;
END;
/
