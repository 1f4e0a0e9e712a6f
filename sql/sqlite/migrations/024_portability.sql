-- Export and import (manager/portability/): the record of each bundle written or read.
--
-- base_portability_log: one row per `memgate export` or `memgate import` (who asked, when, which
-- tenant and scope, counts per table, the bundle's sha256; no content), kept where the erasure
-- records are: an operator table (schema.py OPERATOR_TABLES), so no walled connection and no
-- execute_query reaches it. A data-access request is answered by an export, an erasure by
-- `memgate forget`; both leave a record the operator can show.
CREATE TABLE base_portability_log (
    record_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('export', 'import')),
    scope_kind TEXT NOT NULL CHECK (scope_kind IN ('tenant', 'user', 'agent', 'thread')),
    subject TEXT,
    requested_by TEXT NOT NULL,
    counts_json TEXT NOT NULL DEFAULT '{}',
    bundle_sha256 TEXT NOT NULL,
    source_tenant TEXT,
    recorded_at TEXT NOT NULL
);
CREATE INDEX portability_log_tenant_ix ON base_portability_log (tenant_id, recorded_at);
