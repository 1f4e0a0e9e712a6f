-- The promotion gate's rate cap counts the caller's proposals of the last hour on every
-- `remember` (candidate_recent_count.sql: created_by and created_at). No index began with the
-- proposer, so the count read every candidate of the tenant, every user's: its cost grew with the
-- tenant's candidates, not with the caller's hour. By this index it is a range of the caller's own
-- rows. created_by, not user_id and agent_id, is the key: it is the principal the cap is per
-- (manager/promotion/commit.py caller()), and the wall's user and agent predicates still apply to
-- the rows the range holds. Oracle: install/029_promotion_indexes.sql.
CREATE INDEX memory_candidate_creator_ix ON base_memory_candidate (tenant_id, created_by, created_at);
