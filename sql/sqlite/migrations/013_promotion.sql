-- The promotion gate's decisions, as data (manager/promotion/).
--
-- memory_candidate is one proposal an agent made with the `remember` tool (or an operator's
-- review of it): the claim, the evidence it rests on with the version of each evidence row
-- read when the gate checked it, and the gate's decision (promoted, pending, duplicate,
-- approved, rejected), the rule that decided it and the record it wrote or found. A refusal
-- (evidence not given to the caller, a scope the row does not allow, a deny pattern, a cap)
-- writes no row: nothing the caller sent is kept but the call-log row.
-- memory_assessment is one typed question the assessor answered about a candidate, kept apart
-- from the memory text (the question's version, the policy version that read it, who answered,
-- the probability, its threshold, how long it took).
--
-- Both are under the same tenant and scope wall as every table. A candidate is stamped with the
-- proposing caller's user and agent (and thread when it asked for thread scope), so the caller,
-- and the operator, see it; `scope` is the scope the memory is for. It has the lifecycle columns
-- every memory has (a candidate is current until an operator deletes it), so execute_query's
-- reviewed view memory_candidate shows it like any other table.
CREATE TABLE base_memory_candidate (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    kind TEXT NOT NULL CHECK (kind IN ('fact', 'preference', 'procedure', 'note')),
    scope TEXT NOT NULL CHECK (scope IN ('user', 'agent', 'thread', 'tenant')),
    subject TEXT, predicate TEXT,
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,          -- sha256 of the normalized content: exact duplicates
    evidence_json TEXT NOT NULL,         -- [{"type", "id", "version"}] as the gate read them
    decision TEXT NOT NULL CHECK (decision IN ('promoted', 'pending', 'duplicate', 'approved', 'rejected')),
    rule TEXT NOT NULL,                  -- what decided it: passed, conflict, review, shadow:..., ...
    record_type TEXT, record_id TEXT,    -- the record promoted (or the existing one, for a duplicate)
    assessor TEXT,
    policy_version INTEGER NOT NULL DEFAULT 0,
    reassess INTEGER NOT NULL DEFAULT 0 CHECK (reassess IN (0, 1)),
    decided_by TEXT, decided_at TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CHECK (kind <> 'fact' OR (subject IS NOT NULL AND predicate IS NOT NULL))
);
CREATE INDEX memory_candidate_hash_ix ON base_memory_candidate (tenant_id, content_hash);
CREATE INDEX memory_candidate_recent_ix ON base_memory_candidate (tenant_id, user_id, agent_id, created_at);
CREATE INDEX memory_candidate_record_ix ON base_memory_candidate (tenant_id, record_id);

CREATE TABLE base_memory_assessment (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    candidate_id TEXT NOT NULL,
    question TEXT NOT NULL CHECK (question IN ('supported', 'scope_fits', 'conflict')),
    question_version INTEGER NOT NULL,
    policy_version INTEGER NOT NULL,
    assessor TEXT NOT NULL,
    probability REAL,                    -- NULL: the assessor gave no answer (timeout, failure)
    threshold REAL NOT NULL,
    passed INTEGER NOT NULL CHECK (passed IN (0, 1)),
    latency_ms REAL NOT NULL,
    note TEXT,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX memory_assessment_candidate_ix ON base_memory_assessment (tenant_id, candidate_id);

-- A candidate is a link end: a pending fact `contradicts` the current one. SQLite cannot change
-- a CHECK in place, so base_memory_link is rebuilt with memory_candidate among its end types
-- (the runner rebuilds its view and guards after this migration).
DROP VIEW IF EXISTS memory_link;
CREATE TABLE base_memory_link_013 (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    from_type TEXT NOT NULL CHECK (from_type IN ('entity_memory', 'workflow_memory', 'summarization_memory',
        'knowledge_base_document', 'knowledge_base_chunk', 'conversation_memory', 'image_memory',
        'memory_candidate')),
    from_id TEXT NOT NULL,
    link_type TEXT NOT NULL CHECK (link_type IN ('supersedes', 'refines', 'supports', 'duplicates', 'contradicts')),
    to_type TEXT NOT NULL CHECK (to_type IN ('entity_memory', 'workflow_memory', 'summarization_memory',
        'knowledge_base_document', 'knowledge_base_chunk', 'conversation_memory', 'image_memory',
        'memory_candidate')),
    to_id TEXT NOT NULL,
    provenance TEXT NOT NULL DEFAULT 'explicit' CHECK (provenance IN ('explicit', 'correction', 'extraction')),
    note TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CHECK (NOT (from_type = to_type AND from_id = to_id))
);
INSERT INTO base_memory_link_013 SELECT * FROM base_memory_link;
DROP TABLE base_memory_link;
ALTER TABLE base_memory_link_013 RENAME TO base_memory_link;
CREATE INDEX memory_link_from_ix ON base_memory_link (tenant_id, from_id, from_type);
CREATE INDEX memory_link_to_ix ON base_memory_link (tenant_id, to_id, to_type);
CREATE UNIQUE INDEX memory_link_live_uq ON base_memory_link
    (tenant_id, from_type, from_id, link_type, to_type, to_id) WHERE deleted_at IS NULL;
