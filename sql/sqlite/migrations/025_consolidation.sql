-- Consolidation (manager/consolidation/, `memgate consolidate`): the merges it proposes, for review.
--
-- base_merge_candidate: one proposed merge of two stored records in one scope (the scope columns
-- are the records' own: the scope the merge is carried out in): which link it would write (from
-- `relation` to), which end would end (`retire_id`, never deleted), the versions read, why
-- (`reason`: near_duplicate, stale, repeats_kb; `detail` and `score`, no content) and the review's
-- decision: proposed until an operator approves or rejects it; `memgate consolidate --apply` carries
-- out only approved ones (applied, or gone when an end changed since). An operator table
-- (schema.py OPERATOR_TABLES): no walled connection and no execute_query reaches it. Its rows name
-- a user's records, so `memgate forget` erases them with the user (the retention registry).
CREATE TABLE base_merge_candidate (
    merge_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    reason TEXT NOT NULL CHECK (reason IN ('near_duplicate', 'stale', 'repeats_kb')),
    relation TEXT NOT NULL CHECK (relation IN ('duplicates', 'supersedes')),
    from_type TEXT NOT NULL, from_id TEXT NOT NULL, from_version INTEGER NOT NULL,
    to_type TEXT NOT NULL, to_id TEXT NOT NULL, to_version INTEGER NOT NULL,
    retire_id TEXT NOT NULL,
    score REAL,
    detail TEXT,
    decision TEXT NOT NULL DEFAULT 'proposed'
        CHECK (decision IN ('proposed', 'approved', 'rejected', 'applied', 'gone')),
    decided_by TEXT, decided_at TEXT,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX merge_candidate_pair_uq ON base_merge_candidate (tenant_id, relation, from_id, to_id);
CREATE INDEX merge_candidate_decision_ix ON base_merge_candidate (tenant_id, decision);
