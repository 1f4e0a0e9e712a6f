-- 020_schema.sql: the memgate tables, the same logical model as sql/sqlite/migrations/ (001, 002,
-- 004, 007, 008, 009, 010). Run by: MEMGATE_OWNER. Re-runnable: CREATE TABLE IF NOT EXISTS (23ai and later: "If
-- the object already exists, the command is ignored, and the original object remains unchanged").
-- Indexes: 021. Triggers: 022. Oracle Text index: 023. VPD: 040. Grants to the app: 045.
--
-- No base_ prefix: the tables carry the logical names and VPD (040) is the tenant wall on them.
-- A column added in a later schema version goes into an ALTER TABLE ... ADD guarded by
-- USER_TAB_COLUMNS at the end of this file (CREATE TABLE IF NOT EXISTS does not add it to a
-- table that exists).
--
-- Types, and why:
-- * ids are VARCHAR2(64): memgate writes text ids (manager/ids.py); tenant, user, agent and thread
--   ids are VARCHAR2(256) because SYS_CONTEXT returns at most 256 bytes unless asked for more
--   (SQL Reference, SYS_CONTEXT) and memgate_ctx_pkg refuses longer ids; but
--   knowledge_base_chunk.tenant_id is VARCHAR2(200 BYTE), the width its text index allows (below).
-- * timestamps stay ISO-8601 UTC text, VARCHAR2(24) 'YYYY-MM-DDTHH:MM:SS.fffZ', exactly as on
--   SQLite: the manager passes :now as that string (manager/clock.py) and compares lifecycle
--   columns with it. Fixed width and binary comparison (the backend pins NLS_COMP and NLS_SORT to
--   BINARY) order them by time; the CHECK refuses any other text.
-- * JSON columns are CLOB with an IS JSON check: the manager reads and writes JSON text, and text
--   round-trips exactly (python-oracledb binds a str to a CLOB directly). mcp_call_log.arguments_json
--   is clipped to 4,000 characters by the manager, so it is not always valid JSON: a plain CLOB.
-- * long text is CLOB; a claim's content is VARCHAR2(4000) so it stays comparable and readable in
--   execute_query.
-- * embeddings are VECTOR(*, FLOAT32): a flexible dimension count ("Valid values can either be *
--   (i.e. flexible) or an integer between 1 and 65535", AI Vector Search, ORA-51801) in float32,
--   because the embedder is configurable (256 dimensions by default, an in-database ONNX model's
--   own otherwise). Every vector statement compares only rows of one embedding_model and one
--   dimension count. Cost: no vector index over mixed dimensions (ORA-49063); search is exact.
-- * Oracle stores '' as NULL: memory_file.content and tenant_mapping.issuer are nullable for that
--   reason, and the backend reads NULL back as '' there. Other NOT NULL text never receives ''.
-- Guidelines the agent follows, versioned by key and scope.
CREATE TABLE IF NOT EXISTS guideline_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    guideline_key VARCHAR2(256) NOT NULL,
    content CLOB NOT NULL,
    content_json CLOB CHECK (content_json IS JSON),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Personas, versioned by key and scope.
CREATE TABLE IF NOT EXISTS persona_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    persona_key VARCHAR2(256) DEFAULT 'default' NOT NULL,
    name VARCHAR2(512) NOT NULL,
    content CLOB NOT NULL,
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Tool definitions: tool_schema is the advertised inputSchema, usage_notes the description,
-- tool_handler names a handler on the toolbox allowlist, access_policy the scopes and roles.
CREATE TABLE IF NOT EXISTS toolbox_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    tool_name VARCHAR2(256) NOT NULL,
    tool_schema CLOB NOT NULL CHECK (tool_schema IS JSON),
    usage_notes CLOB NOT NULL,
    tool_handler VARCHAR2(128) NOT NULL,
    access_policy CLOB DEFAULT '{}' NOT NULL CHECK (access_policy IS JSON),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Claims (subject, predicate, content); versions are immutable (022).
CREATE TABLE IF NOT EXISTS entity_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    subject VARCHAR2(512) NOT NULL,
    predicate VARCHAR2(256) NOT NULL,
    content VARCHAR2(4000) NOT NULL,
    content_json CLOB CHECK (content_json IS JSON),
    confidence BINARY_DOUBLE,
    embedding VECTOR(*, FLOAT32),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Workflows, versioned by key and scope.
CREATE TABLE IF NOT EXISTS workflow_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    workflow_key VARCHAR2(256) NOT NULL,
    title VARCHAR2(1000) NOT NULL,
    content CLOB NOT NULL,
    steps_json CLOB CHECK (steps_json IS JSON),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- content: the full text; execute_query shows it as <LOB> and never reads it.
CREATE TABLE IF NOT EXISTS knowledge_base_document (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    collection VARCHAR2(256) DEFAULT 'default' NOT NULL,
    title VARCHAR2(1000) NOT NULL,
    source_uri VARCHAR2(2000),
    mime_type VARCHAR2(128),
    content_hash VARCHAR2(128),
    token_count NUMBER(10),
    content CLOB,
    metadata_json CLOB CHECK (metadata_json IS JSON),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- seq is the stable numeric key the retrieval legs return (SQLite's FTS rowid); id stays the
-- citation id. The lexical index is an Oracle Text CONTEXT index on content (023), FILTER BY
-- tenant_id: a FILTER BY column is stored as SDATA, in VARCHAR2(249 BYTE), and a wider one is
-- refused (DRG-11309: "column size is at most 249 bytes long"; Oracle Text Reference 26, Token
-- Limitations for Oracle Text Indexes). So this tenant_id is 200 bytes, stated in BYTE so that a
-- session with NLS_LENGTH_SEMANTICS = CHAR does not make it 200 characters: memgate's tenant ids
-- are 1 to 200 ASCII characters (manager/identity.py), so every valid tenant fits.
CREATE TABLE IF NOT EXISTS knowledge_base_chunk (
    seq NUMBER(19) GENERATED BY DEFAULT ON NULL AS IDENTITY PRIMARY KEY,
    id VARCHAR2(64) NOT NULL CONSTRAINT kb_chunk_id_uq UNIQUE,
    tenant_id VARCHAR2(200 BYTE) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    document_id VARCHAR2(64) NOT NULL,
    collection VARCHAR2(256) DEFAULT 'default' NOT NULL,
    position NUMBER(10) NOT NULL,
    content CLOB NOT NULL,
    token_count NUMBER(10),
    char_start NUMBER(10),
    char_end NUMBER(10),
    embedding VECTOR(*, FLOAT32),
    embedding_model VARCHAR2(128),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- event_type: turn | tool_call | tool_result | context_manifest | clarify_answer
CREATE TABLE IF NOT EXISTS conversation_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    event_type VARCHAR2(64) NOT NULL,
    role VARCHAR2(64),
    content CLOB,
    content_json CLOB CHECK (content_json IS JSON),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- source_versions_json: the {table, id, version} list the summary was built from.
CREATE TABLE IF NOT EXISTS summarization_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    title VARCHAR2(1000) NOT NULL,
    content CLOB NOT NULL,
    period_start VARCHAR2(24) CHECK (REGEXP_LIKE(period_start, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    period_end VARCHAR2(24) CHECK (REGEXP_LIKE(period_end, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_versions_json CLOB CHECK (source_versions_json IS JSON),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- store_key e.g. agent:<agent>, user:<user>; scope: agent | user | session | shared | global | context
CREATE TABLE IF NOT EXISTS memory_store (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    store_key VARCHAR2(1000) NOT NULL,
    scope VARCHAR2(32) NOT NULL,
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- The memory tool's files: deleted for real, writers compare-and-set on version. content is
-- nullable only because Oracle stores '' as NULL: an empty file (the backend reads it back as '').
CREATE TABLE IF NOT EXISTS memory_file (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    store_id VARCHAR2(64) NOT NULL CONSTRAINT memory_file_store_fk REFERENCES memory_store (id),
    path VARCHAR2(1024) NOT NULL,
    content CLOB,
    size_chars NUMBER(10) NOT NULL,
    size_bytes NUMBER(10) NOT NULL,
    version NUMBER(10) DEFAULT 1 NOT NULL,
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    updated_by VARCHAR2(512),
    updated_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(updated_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- One row per tool call; append-only (022). mcp_client (the host's clientInfo name and version)
-- and model (when the host names one) are what SQLcl's DBTOOLS$MCP_LOG records (060).
-- arguments_json is clipped text, so it is a plain CLOB, not checked as JSON.
CREATE TABLE IF NOT EXISTS mcp_call_log (
    call_id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    called_at VARCHAR2(24) NOT NULL CHECK (REGEXP_LIKE(called_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    principal VARCHAR2(512),
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    client_name VARCHAR2(256),
    client_version VARCHAR2(256),
    session_id VARCHAR2(256),
    transport VARCHAR2(32),
    tool_name VARCHAR2(256) NOT NULL,
    handler VARCHAR2(128),
    toolbox_row_id VARCHAR2(64),
    toolbox_row_version NUMBER(10),
    argument_digest VARCHAR2(64),
    arguments_json CLOB,
    status VARCHAR2(16) NOT NULL CHECK (status IN ('ok', 'denied', 'invalid', 'error', 'timeout')),
    error_class VARCHAR2(256),
    rows_returned NUMBER(10),
    truncated NUMBER(1) CHECK (truncated IN (0, 1)),
    result_tokens NUMBER(10),
    result_text CLOB,
    cited_ids CLOB CHECK (cited_ids IS JSON),
    duration_ms BINARY_DOUBLE,
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    mcp_client VARCHAR2(512),
    model VARCHAR2(256)
)
/
-- Operator-managed tenant mapping (sql/sqlite/migrations/007_tenant_mapping.sql): which tenant,
-- and optionally which user, a verified token speaks for when it carries no tenant claim. Read and
-- written by the operator session (the owner) only: MEMGATE_APP and MEMGATE_QUERY have no grant
-- on it, and its VPD predicate shows them nothing (040).
-- issuer is the token's issuer for kind iss_sub and NULL for the other kinds (SQLite stores '';
-- Oracle stores '' as NULL), so the key is a unique index (021), not a primary key.
CREATE TABLE IF NOT EXISTS tenant_mapping (
    kind VARCHAR2(16) NOT NULL CHECK (kind IN ('iss_sub', 'client_id', 'hd', 'email_domain')),
    issuer VARCHAR2(1000),
    value VARCHAR2(400) NOT NULL,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    note VARCHAR2(2000),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    CONSTRAINT tenant_mapping_issuer_ck CHECK ((kind = 'iss_sub' AND issuer IS NOT NULL)
                                               OR (kind <> 'iss_sub' AND issuer IS NULL))
)
/
-- Image memory (sql/sqlite/migrations/010_images.sql): an image's bytes as a BLOB, with what a
-- reader needs without reading them. Its own table, not a column of knowledge_base_document, so
-- no statement that reads documents row-wise carries the bytes; only image_bytes.sql reads them.
-- Its description is a knowledge_base_document (document_id). Not a reviewed view (050): the
-- images are readable to execute_query as their description documents.
CREATE TABLE IF NOT EXISTS image_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    collection VARCHAR2(256) DEFAULT 'default' NOT NULL,
    title VARCHAR2(1000) NOT NULL,
    source_uri VARCHAR2(2000) NOT NULL,
    document_id VARCHAR2(64),
    description CLOB,
    mime_type VARCHAR2(128) NOT NULL CHECK (mime_type IN ('image/png', 'image/jpeg', 'image/webp', 'image/gif')),
    width NUMBER(10) NOT NULL CHECK (width > 0),
    height NUMBER(10) NOT NULL CHECK (height > 0),
    byte_size NUMBER(12) NOT NULL,
    sha256 VARCHAR2(64) NOT NULL,
    bytes BLOB NOT NULL,
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Operator table (sql/sqlite/migrations/004_context.sql): the key every server process on this
-- database seals MCP request state with, so a second process can finish an elicitation round the
-- first one started (manager/registry/server_keys.py, through the operator session). No tenant
-- column and no VPD policy: only the owner reaches it, because no other account has a grant on it
-- (045). RAW, because python-oracledb binds bytes as RAW; at least 32 bytes, as on SQLite.
CREATE TABLE IF NOT EXISTS server_secret (
    name VARCHAR2(128) PRIMARY KEY,
    secret RAW(1000) NOT NULL CHECK (LENGTH(RAWTOHEX(secret)) >= 64),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Typed, directed links between memories (SQLite migration 009): from (type, id) --link_type--> to
-- (type, id), under VPD like every memory table. The writer stamps the scope of both ends together;
-- readers resolve the far end through VPD again (manager/links/). A removed link keeps its row with
-- deleted_at. Live links are unique per ends and type (021).
CREATE TABLE IF NOT EXISTS memory_link (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    agent_id VARCHAR2(256),
    thread_id VARCHAR2(256),
    from_type VARCHAR2(64) NOT NULL CHECK (from_type IN ('entity_memory', 'workflow_memory', 'summarization_memory',
        'knowledge_base_document', 'knowledge_base_chunk', 'conversation_memory', 'image_memory')),
    from_id VARCHAR2(64) NOT NULL,
    link_type VARCHAR2(32) NOT NULL CHECK (link_type IN ('supersedes', 'refines', 'supports', 'duplicates', 'contradicts')),
    to_type VARCHAR2(64) NOT NULL CHECK (to_type IN ('entity_memory', 'workflow_memory', 'summarization_memory',
        'knowledge_base_document', 'knowledge_base_chunk', 'conversation_memory', 'image_memory')),
    to_id VARCHAR2(64) NOT NULL,
    provenance VARCHAR2(32) DEFAULT 'explicit' NOT NULL CHECK (provenance IN ('explicit', 'correction', 'extraction')),
    note VARCHAR2(4000),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64),
    source_id VARCHAR2(64),
    source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    CHECK (NOT (from_type = to_type AND from_id = to_id))
)
/
-- Which schema version is installed (090 writes the row). No tenant column: no VPD policy.
CREATE TABLE IF NOT EXISTS memgate_schema (
    version NUMBER(10) PRIMARY KEY,
    applied_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(applied_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Columns added after schema version 1: a table version 1 created lacks them, and CREATE TABLE IF
-- NOT EXISTS leaves an existing table as it is, so each is added unless USER_TAB_COLUMNS lists it.
-- Schema version 2 (sql/sqlite/migrations/004_context.sql):
-- * guideline_memory.row_id: a guideline's logical id, the same for all its versions (id stays one
--   version's key). The tenant-wide budget is context_context_budget in every tenant; any other
--   guideline keeps the id of its first version. Unique with (tenant_id, row_id, version) (021);
--   a writer that names none gets its own id (022).
-- * conversation_memory: turn_index orders a thread's turns (the window's volatile tail),
--   session_id keeps the events of a window opened with no thread, window_id is the manifest an
--   event belongs to, token_count what the event cost the window.
-- Schema version 5 (sql/sqlite/migrations/016_conversations.sql; the conversation table is 026's):
-- * conversation_memory.conversation_id: the conversation a turn, compaction event or clarify
--   answer is numbered in; speaker: who said a turn (a user or agent id, or an imported name).
-- * summarization_memory.conversation_id: the conversation a compaction summary covers.
DECLARE
  PROCEDURE add_column(p_table VARCHAR2, p_column VARCHAR2, p_type VARCHAR2) IS
    n PLS_INTEGER;
  BEGIN
    SELECT COUNT(*) INTO n FROM user_tab_columns WHERE table_name = p_table AND column_name = p_column;
    IF n = 0 THEN
      EXECUTE IMMEDIATE 'ALTER TABLE ' || p_table || ' ADD (' || p_column || ' ' || p_type || ')';
    END IF;
  END add_column;
BEGIN
  add_column('GUIDELINE_MEMORY', 'ROW_ID', 'VARCHAR2(64)');
  add_column('CONVERSATION_MEMORY', 'TURN_INDEX', 'NUMBER(10)');
  add_column('CONVERSATION_MEMORY', 'SESSION_ID', 'VARCHAR2(256)');
  add_column('CONVERSATION_MEMORY', 'WINDOW_ID', 'VARCHAR2(64)');
  add_column('CONVERSATION_MEMORY', 'TOKEN_COUNT', 'NUMBER(10)');
  add_column('CONVERSATION_MEMORY', 'CONVERSATION_ID', 'VARCHAR2(64)');
  add_column('CONVERSATION_MEMORY', 'SPEAKER', 'VARCHAR2(256)');
  add_column('SUMMARIZATION_MEMORY', 'CONVERSATION_ID', 'VARCHAR2(64)');
END;
/
-- Upgrading from schema version 1, as SQLite's migration 004 does: every guideline gets its row id
-- (before 021 makes (tenant_id, row_id, version) unique), and an open budget version that still has
-- the old keys (max_window_tokens, max_tool_rounds) is retired and followed by a version with the
-- new names (usable_context, max_rounds), like any policy update. Both steps touch only rows that
-- still need them, so a second run changes nothing; the block is one call, so an interrupted run
-- leaves no half (an unhandled exception rolls back what the block did). The owner runs it with no
-- identity bound: VPD shows it every row and the guards (022) let the operator path through.
-- JSON_TRANSFORM's RENAME leaves a missing field alone ("IGNORE ON MISSING (default)", JSON
-- Developer's Guide 23, JSON_TRANSFORM Operator RENAME) and returns the input's type, CLOB.
DECLARE
  c_marker CONSTANT VARCHAR2(64) := 'memgate install, schema version 2';
BEGIN
  UPDATE guideline_memory g SET g.row_id = CASE
      WHEN g.guideline_key = 'context_budget' AND g.user_id IS NULL AND g.agent_id IS NULL AND g.thread_id IS NULL
          THEN 'context_context_budget'
      ELSE (SELECT f.id FROM guideline_memory f
             WHERE f.tenant_id = g.tenant_id AND f.guideline_key = g.guideline_key
               AND DECODE(f.user_id, g.user_id, 1, 0) = 1 AND DECODE(f.agent_id, g.agent_id, 1, 0) = 1
               AND DECODE(f.thread_id, g.thread_id, 1, 0) = 1
             ORDER BY f.version, f.id FETCH FIRST 1 ROWS ONLY)
    END
  WHERE g.row_id IS NULL;
  FOR budget IN (SELECT id FROM guideline_memory
               WHERE guideline_key = 'context_budget' AND valid_until IS NULL AND deleted_at IS NULL
                 AND content_json IS JSON
                 AND (JSON_EXISTS(content_json, '$.max_window_tokens') OR JSON_EXISTS(content_json, '$.max_tool_rounds'))) LOOP
    INSERT INTO guideline_memory
        (id, tenant_id, user_id, agent_id, thread_id, guideline_key, content, content_json, version,
         valid_from, source_table, source_id, source_version, created_by, created_at, row_id)
    SELECT 'gdl_' || LOWER(RAWTOHEX(SYS_GUID())), tenant_id, user_id, agent_id, thread_id, guideline_key, content,
           JSON_TRANSFORM(content_json, RENAME '$.max_window_tokens' = 'usable_context',
                                        RENAME '$.max_tool_rounds' = 'max_rounds'),
           version + 1, TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"'),
           'guideline_memory', id, version, c_marker,
           TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"'), row_id
      FROM guideline_memory WHERE id = budget.id;
    UPDATE guideline_memory
       SET valid_until = (SELECT n.valid_from FROM guideline_memory n
                           WHERE n.source_table = 'guideline_memory' AND n.source_id = budget.id
                             AND n.created_by = c_marker)
     WHERE id = budget.id;
  END LOOP;
END;
/
COMMIT
/
