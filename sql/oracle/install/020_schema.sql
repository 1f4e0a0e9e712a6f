-- 020_schema.sql: the memgate tables (same logical schema as sql/sqlite/migrations/001_initial.sql).
-- Run by: MEMGATE_OWNER. Re-runnable: CREATE TABLE IF NOT EXISTS (23ai+; an existing table is left
-- unchanged, so later columns are added by the guarded ALTER blocks at the end of this file).
-- Indexes: 021. Triggers: 022. Oracle Text index: 023. VPD: 040. Grants to the app: 045.
--
-- No base_ prefix: the tables carry the logical names and VPD (040) is the tenant wall on them.
--
-- Types, and why:
-- * ids are VARCHAR2(64): memgate writes text ids (manager/ids.py: "<prefix>_<hex>"); tenant,
--   user, agent and thread ids are VARCHAR2(256) because SYS_CONTEXT returns at most 256 bytes
--   unless asked for more ("The default maximum size of the return value is 256 bytes", SQL
--   Reference, SYS_CONTEXT) and memgate_ctx_pkg refuses longer ids.
-- * timestamps stay ISO-8601 UTC text, VARCHAR2(24) 'YYYY-MM-DDTHH:MM:SS.fffZ', exactly as in
--   SQLite: the manager passes :now as that string (manager/clock.py) and compares lifecycle
--   columns with it (valid_from <= :now). Text vs text keeps every named statement identical in
--   meaning; a TIMESTAMP column compared with a VARCHAR2 bind would convert through
--   NLS_TIMESTAMP_TZ_FORMAT, per session. Fixed width + BINARY comparison (NLS_COMP=BINARY, the
--   default; the backend pins it) orders them correctly. The CHECK refuses anything else (a Python
--   datetime bound by mistake would arrive NLS-formatted and break every comparison).
-- * JSON columns are the JSON type (21c+ OSON), except mcp_call_log.arguments_json: the manager
--   clips it at 4,000 characters (manager/calllog.py), so it is not always valid JSON.
-- * long text is CLOB; short claim text (entity_memory.content) is VARCHAR2(4000) so it stays
--   readable in execute_query and comparable.
-- * embeddings are VECTOR(*, FLOAT32): flexible dimension count, fixed float32 format.
--   "Valid values can either be * (i.e. flexible) or an integer between 1 and 65535" (AI Vector
--   Search, Create Tables Using the VECTOR Data Type). The default embedder is 256-d but a tenant
--   may use another model; embedding_model names the model and every statement compares only
--   rows of one model and one dimension count ("Vectors from different models ... are not
--   comparable", same page). Cost: no vector index ("Cannot create a vector index containing
--   vectors with different dimension counts", ORA-49063); memgate's search is exact anyway.
-- * Oracle stores '' as NULL: memory_file.content is nullable (an empty file is NULL here, the
--   backend maps NULL back to ''); other NOT NULL text columns must not receive ''.
CREATE TABLE IF NOT EXISTS guideline_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    guideline_key VARCHAR2(256) NOT NULL,
    content CLOB NOT NULL,
    content_json JSON,
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64), source_id VARCHAR2(64), source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
CREATE TABLE IF NOT EXISTS persona_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    persona_key VARCHAR2(256) DEFAULT 'default' NOT NULL,
    name VARCHAR2(512) NOT NULL,
    content CLOB NOT NULL,
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64), source_id VARCHAR2(64), source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- tool_schema: the advertised inputSchema; usage_notes: the tool's description;
-- tool_handler: must name a handler in the toolbox allowlist; access_policy: scopes/roles.
CREATE TABLE IF NOT EXISTS toolbox_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    tool_name VARCHAR2(256) NOT NULL,
    tool_schema JSON NOT NULL,
    usage_notes VARCHAR2(4000) NOT NULL,
    tool_handler VARCHAR2(128) NOT NULL,
    access_policy JSON DEFAULT JSON('{}') NOT NULL,
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64), source_id VARCHAR2(64), source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Claims. content_json: conditions / structured value. Versions are immutable (022).
-- embedding_model is not in the SQLite table: with VECTOR(*) it keeps vectors of different
-- models from ever being compared (NULL: the embedder that kb chunks record).
CREATE TABLE IF NOT EXISTS entity_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    subject VARCHAR2(512) NOT NULL,
    predicate VARCHAR2(256) NOT NULL,
    content VARCHAR2(4000) NOT NULL,
    content_json JSON,
    confidence BINARY_DOUBLE,
    embedding VECTOR(*, FLOAT32),
    embedding_model VARCHAR2(128),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64), source_id VARCHAR2(64), source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
CREATE TABLE IF NOT EXISTS workflow_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    workflow_key VARCHAR2(256) NOT NULL,
    title VARCHAR2(1000) NOT NULL,
    content CLOB NOT NULL,
    steps_json JSON,
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64), source_id VARCHAR2(64), source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- content: the full text; execute_query shows it as <LOB> and never reads it.
CREATE TABLE IF NOT EXISTS knowledge_base_document (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    collection VARCHAR2(256) DEFAULT 'default' NOT NULL,
    title VARCHAR2(1000) NOT NULL,
    source_uri VARCHAR2(2000),
    mime_type VARCHAR2(128),
    content_hash VARCHAR2(128),
    token_count NUMBER(10),
    content CLOB,
    metadata_json JSON,
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64), source_id VARCHAR2(64), source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- seq is the stable numeric key of a chunk (the SQLite FTS rowid; here the identity that
-- kb_lexical and kb_vector_* return); id stays the citation id. The lexical index is an
-- Oracle Text CONTEXT index on content (023), kept in step by Oracle Text, not by triggers.
CREATE TABLE IF NOT EXISTS knowledge_base_chunk (
    seq NUMBER(19) GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id VARCHAR2(64) NOT NULL CONSTRAINT kb_chunk_id_uq UNIQUE,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    document_id VARCHAR2(64) NOT NULL,
    collection VARCHAR2(256) DEFAULT 'default' NOT NULL,
    position NUMBER(10) NOT NULL,
    content CLOB NOT NULL,
    token_count NUMBER(10),
    char_start NUMBER(10), char_end NUMBER(10),
    embedding VECTOR(*, FLOAT32),
    embedding_model VARCHAR2(128),
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64), source_id VARCHAR2(64), source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- event_type: turn | tool_call | tool_result | context_manifest | clarify_answer
CREATE TABLE IF NOT EXISTS conversation_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    event_type VARCHAR2(64) NOT NULL,
    role VARCHAR2(64),
    content CLOB,
    content_json JSON,
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64), source_id VARCHAR2(64), source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- source_versions_json: the {table, id, version} list the summary was built from.
CREATE TABLE IF NOT EXISTS summarization_memory (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    title VARCHAR2(1000) NOT NULL,
    content CLOB NOT NULL,
    period_start VARCHAR2(24) CHECK (REGEXP_LIKE(period_start, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    period_end VARCHAR2(24) CHECK (REGEXP_LIKE(period_end, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_versions_json JSON,
    version NUMBER(10) DEFAULT 1 NOT NULL,
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    source_table VARCHAR2(64), source_id VARCHAR2(64), source_version NUMBER(10),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- store_key e.g. agent:<agent>, user:<user>; scope: agent | user | session | shared | global | context
CREATE TABLE IF NOT EXISTS memory_store (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    store_key VARCHAR2(1000) NOT NULL,
    scope VARCHAR2(32) NOT NULL,
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Deleted for real (no lifecycle columns); writers compare-and-set on version.
-- content is nullable only because Oracle stores '' as NULL (an empty file).
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
-- One row per tool call; append-only (022). mcp_client/model: who called, as SQLcl's
-- DBTOOLS$MCP_LOG records them (060). arguments_json is clipped text, not the JSON type.
CREATE TABLE IF NOT EXISTS mcp_call_log (
    call_id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    called_at VARCHAR2(24) NOT NULL CHECK (REGEXP_LIKE(called_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    principal VARCHAR2(512),
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    client_name VARCHAR2(256), client_version VARCHAR2(64),
    mcp_client VARCHAR2(256), model VARCHAR2(256),
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
    cited_ids JSON,
    duration_ms BINARY_DOUBLE,
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Typed links between memory records (being built on SQLite now).
CREATE TABLE IF NOT EXISTS memory_link (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    from_type VARCHAR2(64) NOT NULL,
    from_id VARCHAR2(64) NOT NULL,
    relation VARCHAR2(16) NOT NULL CHECK (relation IN ('supersedes', 'refines', 'supports', 'duplicates', 'contradicts')),
    to_type VARCHAR2(64) NOT NULL,
    to_id VARCHAR2(64) NOT NULL,
    provenance VARCHAR2(16) NOT NULL CHECK (provenance IN ('explicit', 'correction', 'extraction')),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Images extracted from documents. bytes: the image itself (BLOB, never read into a result).
CREATE TABLE IF NOT EXISTS memory_image (
    id VARCHAR2(64) PRIMARY KEY,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256), agent_id VARCHAR2(256), thread_id VARCHAR2(256),
    document_id VARCHAR2(64),
    mime_type VARCHAR2(128) NOT NULL,
    width NUMBER(10), height NUMBER(10),
    byte_size NUMBER(19) NOT NULL,
    sha256 VARCHAR2(64) NOT NULL,
    bytes BLOB,
    description VARCHAR2(4000),
    created_by VARCHAR2(512),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_from VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(valid_from, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    valid_until VARCHAR2(24) CHECK (REGEXP_LIKE(valid_until, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    deleted_at VARCHAR2(24) CHECK (REGEXP_LIKE(deleted_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Operator-managed: which tenant (and user) an identity attribute maps to, e.g. kind 'iss+org',
-- value 'https://idp.example/|acme'. The app resolves it only through
-- memgate_ctx_pkg.resolve_mapping (030); user_id here is a mapping target, not a scope column.
CREATE TABLE IF NOT EXISTS tenant_mapping (
    attribute_kind VARCHAR2(64) NOT NULL,
    attribute_value VARCHAR2(1000) NOT NULL,
    tenant_id VARCHAR2(256) NOT NULL,
    user_id VARCHAR2(256),
    created_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(created_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$')),
    CONSTRAINT tenant_mapping_pk PRIMARY KEY (attribute_kind, attribute_value)
)
/
-- Which install scripts ran. No tenant column and no VPD policy (040): it holds no tenant data.
CREATE TABLE IF NOT EXISTS memgate_schema (
    version NUMBER(10) PRIMARY KEY,
    applied_at VARCHAR2(24) DEFAULT TO_CHAR(SYS_EXTRACT_UTC(SYSTIMESTAMP), 'YYYY-MM-DD"T"HH24:MI:SS.FF3"Z"') NOT NULL CHECK (REGEXP_LIKE(applied_at, '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$'))
)
/
-- Columns added after a table first shipped: CREATE TABLE IF NOT EXISTS does not add them to an
-- existing table, so add them here when missing (without the check a re-run would fail with
-- ORA-01430, column already exists).
DECLARE
  PROCEDURE add_column(p_table VARCHAR2, p_column VARCHAR2, p_type VARCHAR2) IS
    n PLS_INTEGER;
  BEGIN
    SELECT COUNT(*) INTO n FROM user_tab_columns
     WHERE table_name = UPPER(p_table) AND column_name = UPPER(p_column);
    IF n = 0 THEN
      EXECUTE IMMEDIATE 'ALTER TABLE ' || p_table || ' ADD (' || p_column || ' ' || p_type || ')';
    END IF;
  END;
BEGIN
  add_column('mcp_call_log', 'mcp_client', 'VARCHAR2(256)');
  add_column('mcp_call_log', 'model', 'VARCHAR2(256)');
END;
/
