-- Image memory: an image's bytes in the database, under the tenant and scope wall like every
-- other memory, with what a reader needs without reading them (MIME type, width, height, size,
-- sha256). A dedicated table, not a BLOB column of knowledge_base_document: documents are read
-- row-wise by search, fetch, replay and execute_query (`SELECT *`), and none of them should drag
-- megabytes along; here only the statement that serves the bytes (image_bytes.sql) reads them.
--
-- What search finds is the caller-provided description (plus the file name), indexed as an
-- ordinary knowledge-base document whose id is document_id; an image without a description has
-- no document and is stored, not searchable. source_uri keys an ingested file (file://...) like a
-- document's; an image a conversation turn carried is keyed by its content (sha256:<hex>), so the
-- same bytes in the same scope are one row.
CREATE TABLE base_image_memory (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    collection TEXT NOT NULL DEFAULT 'default',
    title TEXT NOT NULL,                 -- the file name
    source_uri TEXT NOT NULL,
    document_id TEXT,                    -- the knowledge-base document of its description, if any
    description TEXT,
    mime_type TEXT NOT NULL CHECK (mime_type IN ('image/png', 'image/jpeg', 'image/webp', 'image/gif')),
    width INTEGER NOT NULL CHECK (width > 0),
    height INTEGER NOT NULL CHECK (height > 0),
    byte_size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    bytes BLOB NOT NULL,                 -- execute_query shows it as <binary N bytes>, never read
    version INTEGER NOT NULL DEFAULT 1,
    valid_from TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    valid_until TEXT,
    deleted_at TEXT,
    source_table TEXT, source_id TEXT, source_version INTEGER,
    created_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CHECK (byte_size = length(bytes))
);
-- One image per source in a collection and scope, as for documents: two ingests of the same
-- file cannot both insert it; a changed file updates this row in place.
CREATE UNIQUE INDEX image_source_uq ON base_image_memory
    (tenant_id, collection, source_uri, ifnull(user_id, ''), ifnull(agent_id, ''), ifnull(thread_id, ''));
CREATE INDEX image_document_ix ON base_image_memory (tenant_id, document_id);
