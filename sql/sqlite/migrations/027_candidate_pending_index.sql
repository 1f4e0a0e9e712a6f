-- The promotion gate reads the caller's pending candidates of one kind on every proposal
-- (candidate_pending.sql, newest first): by this index it finds them without walking every
-- candidate of the tenant, which grew with each proposal decided (an import of a thousand records
-- walked a thousand rows per proposal by its end). Oracle: install/029_promotion_indexes.sql.
CREATE INDEX memory_candidate_pending_ix ON base_memory_candidate (tenant_id, decision, kind, created_at);
