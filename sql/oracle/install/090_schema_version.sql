-- 090_schema_version.sql: records that this install (schema version 6) has run.
-- Run by: MEMGATE_OWNER, last. Re-runnable (inserts only a missing version). The number is
-- SCHEMA_VERSION in manager/backend/oracle/install.py (tests/backend/oracle/test_static_sql.py checks).
-- Versions: 1, the first install (SQLite migrations 001, 002, 007, 008); 2, context windows
-- (SQLite migration 004: guideline row ids, thread event columns, server_secret) and no
-- FLASHBACK grant; 3, image memory and memory links (SQLite migrations 009 and 010: the
-- image_memory and memory_link tables, their guard triggers, VPD policies and grants); 4, the
-- first install that compiles (022's guard package without DECODE in PL/SQL) and the Oracle Text
-- index with MAINTENANCE MANUAL SYNC (ON COMMIT) (023); the promotion gate (SQLite migration 013:
-- memory_candidate and memory_assessment, 024, their VPD policies, grants and the reviewed view
-- qv_memory_candidate; memory_candidate as a link end); retention and erasure (SQLite migration
-- 014: erasure_log, erasure_row, 025, and the call log's erasure update, 022); 5, export and
-- import (SQLite migration 024: portability_log, 028), consolidation (SQLite migration 025:
-- merge_candidate, 028), the reviewed views' rows written by NOW (050: execute_query's as_of), and
-- conversations (SQLite migrations 016 and 017: the conversation and conversation_recall tables, their
-- guards, VPD policies and grants, turns and summaries moved onto their conversation, turn numbers
-- unique per conversation, the recall text and vector indexes, 026); 6, the ids each ok call cited,
-- one a row (SQLite migration 029: mcp_call_cited, its guard, VPD policy and grant, the calls already
-- logged, 032) and the rate cap's index on the proposer (SQLite migration 028, 029).
-- A database at version 1 to 5 is upgraded by running every owner file again
-- (`memgate init`): 020 adds the columns and fills the row ids, the others are re-runnable.
INSERT INTO memgate_schema (version)
SELECT 6 FROM dual WHERE NOT EXISTS (SELECT 1 FROM memgate_schema WHERE version = 6)
/
COMMIT
/
