-- 028_portability.sql: the record of each export and import (SQLite migration 024).
-- Run by: MEMGATE_OWNER. Re-runnable (IF NOT EXISTS).
--
-- `memgate export` and `memgate import` (manager/portability/) write one portability_log row per
-- bundle (who asked, when, which tenant and scope, counts per table, the bundle's sha256; no
-- content), kept where the erasure records are (025): an operator table, no VPD policy and no
-- grant to MEMGATE_APP or MEMGATE_QUERY (045), so only the owner (the operator path) reads or
-- writes it.
CREATE TABLE IF NOT EXISTS portability_log (
    record_id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    action VARCHAR2(16) NOT NULL CHECK (action IN ('export', 'import')),
    scope_kind VARCHAR2(16) NOT NULL CHECK (scope_kind IN ('tenant', 'user', 'agent', 'thread')),
    subject VARCHAR2(256),
    requested_by VARCHAR2(512) NOT NULL,
    counts_json CLOB DEFAULT '{}' NOT NULL CHECK (counts_json IS JSON),
    bundle_sha256 VARCHAR2(64) NOT NULL,
    source_tenant VARCHAR2(256),
    recorded_at VARCHAR2(24) NOT NULL
)
/
CREATE INDEX IF NOT EXISTS portability_log_tenant_ix ON portability_log (tenant_id, recorded_at)
/
