-- Typed, directed links between memories: from (type, id) --link_type--> to (type, id).
--
-- A link is a row under the same wall as every other table: tenant_id and the scope columns.
-- The writer stamps it with the scope of its two ends together (an end scoped to jane makes the
-- link jane's), so whoever sees a link is in scope of both ends; readers still resolve the far
-- end through the wall (manager/links/), so a link never shows a row its reader could not read.
--
-- link_type is read from `from` to `to`: "ent_v2 supersedes ent_v1". Traversed in reverse the
-- relation is named is_superseded_by, is_refined_by, is_supported_by, is_duplicated_by,
-- is_contradicted_by (manager/links/kinds.py). provenance says who made it: explicit (a person
-- or a tool call), correction (a claim's next version, written in the correction's transaction),
-- extraction (derived by a pipeline). A removed link keeps its row with deleted_at set.
CREATE TABLE base_memory_link (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    from_type TEXT NOT NULL CHECK (from_type IN ('entity_memory', 'workflow_memory', 'summarization_memory',
        'knowledge_base_document', 'knowledge_base_chunk', 'conversation_memory', 'image_memory')),
    from_id TEXT NOT NULL,
    link_type TEXT NOT NULL CHECK (link_type IN ('supersedes', 'refines', 'supports', 'duplicates', 'contradicts')),
    to_type TEXT NOT NULL CHECK (to_type IN ('entity_memory', 'workflow_memory', 'summarization_memory',
        'knowledge_base_document', 'knowledge_base_chunk', 'conversation_memory', 'image_memory')),
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
CREATE INDEX memory_link_from_ix ON base_memory_link (tenant_id, from_id, from_type);
CREATE INDEX memory_link_to_ix ON base_memory_link (tenant_id, to_id, to_type);
-- One live link of a type between two ends: adding it again finds the one there.
CREATE UNIQUE INDEX memory_link_live_uq ON base_memory_link
    (tenant_id, from_type, from_id, link_type, to_type, to_id) WHERE deleted_at IS NULL;
