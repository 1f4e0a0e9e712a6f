-- 025_retention.sql: the erasure record and the keys each erasure removed (SQLite migration 014).
-- Run by: MEMGATE_OWNER. Re-runnable (IF NOT EXISTS).
--
-- `memgate forget` (manager/retention/erase.py) writes one erasure_log row per erasure (who asked,
-- when, the subject, counts per table; no content), `running` until every table is done, so an
-- interrupted run is found and finished by the next; and erasure_row, the keys of the rows each
-- batch removed (random ids, no content), in the batch's transaction: a resumed run finds the rows
-- that referenced them, and replay tells "a source was erased" from "deleted". Operator tables
-- like server_secret: no VPD policy and no grant to MEMGATE_APP or MEMGATE_QUERY (045), so only
-- the owner (the operator path) reads or writes them.
CREATE TABLE IF NOT EXISTS erasure_log (
    erasure_id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    subject_kind VARCHAR2(16) NOT NULL CHECK (subject_kind IN ('user', 'agent', 'thread')),
    subject VARCHAR2(256) NOT NULL,
    requested_by VARCHAR2(512) NOT NULL,
    status VARCHAR2(16) NOT NULL CHECK (status IN ('running', 'done')),
    counts_json CLOB DEFAULT '{}' NOT NULL CHECK (counts_json IS JSON),
    started_at VARCHAR2(24) NOT NULL,
    finished_at VARCHAR2(24)
)
/
CREATE INDEX IF NOT EXISTS erasure_log_subject_ix ON erasure_log (tenant_id, subject_kind, subject, status)
/
CREATE TABLE IF NOT EXISTS erasure_row (
    erasure_id VARCHAR2(64) NOT NULL REFERENCES erasure_log (erasure_id),
    tenant_id VARCHAR2(256) NOT NULL,
    table_name VARCHAR2(128) NOT NULL,
    row_key VARCHAR2(256) NOT NULL,
    CONSTRAINT erasure_row_pk PRIMARY KEY (erasure_id, table_name, row_key)
)
/
CREATE INDEX IF NOT EXISTS erasure_row_key_ix ON erasure_row (tenant_id, row_key)
/
