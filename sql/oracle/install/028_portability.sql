-- 028_portability.sql: the record of each export and import (SQLite migration 024), and the merges
-- consolidation proposes (SQLite migration 025).
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
-- Consolidation (SQLite migration 025; manager/consolidation/, `memgate consolidate`): the merges it
-- proposes for review (two records of one scope, the link it would write, the end it would end,
-- why; no content) and the review's decision. An operator table like portability_log: no VPD
-- policy and no grant, so only the owner reads or writes it.
CREATE TABLE IF NOT EXISTS merge_candidate (
    merge_id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    reason VARCHAR2(32) NOT NULL CHECK (reason IN ('near_duplicate', 'stale', 'repeats_kb')),
    relation VARCHAR2(32) NOT NULL CHECK (relation IN ('duplicates', 'supersedes')),
    from_type VARCHAR2(64) NOT NULL,
    from_id VARCHAR2(256) NOT NULL,
    from_version NUMBER(10) NOT NULL,
    to_type VARCHAR2(64) NOT NULL,
    to_id VARCHAR2(256) NOT NULL,
    to_version NUMBER(10) NOT NULL,
    retire_id VARCHAR2(256) NOT NULL,
    score NUMBER,
    detail VARCHAR2(1000),
    decision VARCHAR2(16) DEFAULT 'proposed' NOT NULL
        CHECK (decision IN ('proposed', 'approved', 'rejected', 'applied', 'gone')),
    decided_by VARCHAR2(512),
    decided_at VARCHAR2(24),
    created_by VARCHAR2(512) NOT NULL,
    created_at VARCHAR2(24) NOT NULL
)
/
CREATE UNIQUE INDEX IF NOT EXISTS merge_candidate_pair_uq ON merge_candidate (tenant_id, relation, from_id, to_id)
/
CREATE INDEX IF NOT EXISTS merge_candidate_decision_ix ON merge_candidate (tenant_id, decision)
/
