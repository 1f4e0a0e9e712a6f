"""Every SQL and PL/SQL text the Oracle backend sends that is not a named statement.

Named statements live in sql/oracle/<name>.sql; what is left (binding the identity,
session set-up, the schema version, the change marker) is declared here, once, with its kind and
bind names, so the static checks (tests/backend/oracle/test_static_sql.py) parse every one of
them: `sql` with sqlglot's Oracle dialect (or, where it cannot, reported as unchecked with
the `unparsed` reason), `plsql` by the block balance check and the package allowlist, and
`session` (ALTER SESSION, which sqlglot does not model) reported as unchecked. No other module of this package holds SQL text (the checks grep for it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Inline:
    text: str
    kind: Literal["sql", "plsql", "session"]
    #: the bind names the text uses, exactly as the code passes them
    binds: tuple[str, ...] = ()
    #: why sqlglot cannot parse this `sql` text (the static checks report it as unchecked), or None
    unparsed: str | None = None


# -- the identity of a call (sql/oracle/install/030_context.sql) --------------------------
# :now is the session's evaluation time (NULL when the session has none), read as MEMGATE_CTX's NOW.
SET_IDENTITY = Inline(
    "BEGIN memgate_ctx_pkg.set_identity(:tenant, :user_id, :agent_id, :thread_id, :call_id, :now); END;",
    "plsql",
    ("tenant", "user_id", "agent_id", "thread_id", "call_id", "now"),
)
CLEAR_IDENTITY = Inline("BEGIN memgate_ctx_pkg.clear_identity; END;", "plsql")
# execute_query: an app session hands the caller's identity and the call's time to the query
# session whose client identifier is :handle, and takes them back afterwards.
SHARE_WITH_QUERY_IDENTITY = Inline(
    "BEGIN memgate_ctx_pkg.share_with_query(:handle, :tenant, :user_id, :agent_id, :thread_id, :now); END;",
    "plsql",
    ("handle", "tenant", "user_id", "agent_id", "thread_id", "now"),
)
UNSHARE_WITH_QUERY = Inline("BEGIN memgate_ctx_pkg.unshare_with_query(:handle); END;", "plsql", ("handle",))
# On the query session, before the model's query: an explicit round trip, so the identifier
# is set on the server before the query is parsed (DBMS_SESSION is executable by PUBLIC).
SET_IDENTIFIER = Inline("BEGIN DBMS_SESSION.SET_IDENTIFIER(:handle); END;", "plsql", ("handle",))
CLEAR_IDENTIFIER = Inline("BEGIN DBMS_SESSION.CLEAR_IDENTIFIER; END;", "plsql")

# -- session set-up (the pools' session callback; constant per session) -------------------
# The app names the owner's tables unqualified, as the named statements do.
APP_SCHEMA = Inline("ALTER SESSION SET CURRENT_SCHEMA = MEMGATE_OWNER", "session")
# Timestamps are ISO-8601 text: byte order must be time order.
BINARY_COMPARE = Inline("ALTER SESSION SET NLS_COMP = BINARY", "session")
BINARY_SORT = Inline("ALTER SESSION SET NLS_SORT = BINARY", "session")

# -- schema ---------------------------------------------------------------------------------
SCHEMA_VERSION = Inline("SELECT MAX(version) AS version FROM memgate_owner.memgate_schema", "sql")
# The tables the app account may touch are the walled ones; memgate_schema holds no tenant data.
WALLED_TABLES = Inline(
    "SELECT LOWER(table_name) AS name FROM all_tables WHERE owner = 'MEMGATE_OWNER' "
    "AND table_name <> 'MEMGATE_SCHEMA' ORDER BY 1",
    "sql",
)

# -- writes ---------------------------------------------------------------------------------
#: one row into a logical table; {table} and {columns} are checked identifiers, {binds} ":c, ..."
INSERT_ROW = Inline("INSERT INTO {table} ({columns}) VALUES ({binds})", "sql")

# -- embeddings in the database (an ONNX model loaded with DBMS_VECTOR.LOAD_ONNX_MODEL) ------
#: {model} is a checked identifier (settings.py): a model name cannot be a bind
EMBED_TEXT = Inline(
    "SELECT VECTOR_EMBEDDING({model} USING :text AS data) AS embedding FROM dual",
    "sql",
    ("text",),
    unparsed="sqlglot 30 does not parse VECTOR_EMBEDDING's USING clause "
    "(SQL Reference 23, VECTOR_EMBEDDING: mining_attribute_clause)",
)

# -- the change marker a context manifest records: the current SCN, and reading as of it -------
CHANGE_MARKER = Inline("SELECT DBMS_FLASHBACK.GET_SYSTEM_CHANGE_NUMBER AS scn FROM dual", "sql")
# Session-level Flashback: every query until DISABLE reads as of :scn, under the same VPD policies;
# DML is refused meanwhile. Needs only EXECUTE on DBMS_FLASHBACK (010), no FLASHBACK object grant
# ("To use this package, a database administrator must grant EXECUTE privileges for DBMS_FLASHBACK",
# PL/SQL Packages and Types Reference, DBMS_FLASHBACK, Security Model).
ENABLE_AS_OF = Inline("BEGIN DBMS_FLASHBACK.ENABLE_AT_SYSTEM_CHANGE_NUMBER(:scn); END;", "plsql", ("scn",))
DISABLE_AS_OF = Inline("BEGIN DBMS_FLASHBACK.DISABLE; END;", "plsql")

# -- `memgate doctor`'s post-install reads, as the owner (doctor.py judges the rows) ------------
# USER_OBJECTS, USER_POLICIES and USER_INDEXES describe objects the current user owns (Database
# Reference); ALL_CONTEXT the context namespaces active in the session, so it is read once
# doctor has bound a probe identity with memgate_ctx_pkg.set_identity (the owner owns the package).
DOCTOR_OBJECTS = Inline(
    "SELECT object_name, object_type, status FROM user_objects "
    "WHERE object_type IN ('PACKAGE', 'PACKAGE BODY', 'TRIGGER', 'VIEW') ORDER BY object_name, object_type",
    "sql",
)
DOCTOR_POLICIES = Inline("SELECT object_name, policy_name, enable FROM user_policies ORDER BY object_name", "sql")
DOCTOR_TEXT_INDEXES = Inline(
    "SELECT index_name, status, domidx_status, domidx_opstatus FROM user_indexes "
    "WHERE index_type = 'DOMAIN' ORDER BY index_name",
    "sql",
)
DOCTOR_CONTEXTS = Inline("SELECT namespace, schema, package FROM all_context ORDER BY namespace", "sql")
# Oracle-managed files: DB_CREATE_FILE_DEST, where 010 lets the database name MEMGATE_QUERY_TEMP's
# file. V$PARAMETER needs a privilege the owner rarely has; doctor_reads.py then asks the DBA, or says so.
DOCTOR_OMF = Inline("SELECT value FROM v$parameter WHERE name = 'db_create_file_dest'", "sql")
# As the query account (doctor_query.py judges): USER_SYNONYMS and USER_USERS describe the current
# user's synonyms and the user itself, its TEMPORARY_TABLESPACE included (Database Reference).
DOCTOR_QUERY_SYNONYMS = Inline(
    "SELECT synonym_name, table_owner, table_name FROM user_synonyms ORDER BY synonym_name", "sql"
)
DOCTOR_QUERY_TEMP = Inline("SELECT temporary_tablespace FROM user_users", "sql")
# Set on Autonomous AI Database, which creates no tablespace for memgate; an error elsewhere means "not it".
DOCTOR_CLOUD_SERVICE = Inline("SELECT SYS_CONTEXT('USERENV', 'CLOUD_SERVICE') AS cloud_service FROM dual", "sql")
# What a query session under the handle sees of the identity the app handed over (030, MEMGATE_QCTX).
DOCTOR_QUERY_TENANT = Inline("SELECT SYS_CONTEXT('MEMGATE_QCTX', 'TENANT') AS tenant FROM dual", "sql")

# -- retention and erasure (manager/backend/retention_store.py composes them) ----------------
# Run by the owner (operator path: VPD adds no predicate, the guards let it through). {columns},
# {source}, {where}, {order}, {table}, {key}, {assignments} and {in_keys} are built from the
# retention registry's checked identifiers; values are binds. The binds declared are those of the
# static check's samples (tests/backend/oracle/test_static_sql.py: where binds :tenant, in_keys
# :keys, assignments :v_content).
RETENTION_SELECT = Inline(
    "SELECT {columns} FROM {source} WHERE {where} ORDER BY {order} FETCH FIRST :batch ROWS ONLY",
    "sql",
    ("batch", "tenant", "marker"),
)
#: a fragment, not a statement: membership in the JSON list bound as :{bind} (checked inside the two below)
RETENTION_IN_JSON = "IN (SELECT j.k FROM JSON_TABLE(:{bind}, '$[*]' COLUMNS (k VARCHAR2(256) PATH '$')) j)"
#: a fragment: a CLOB column differs from a text bind (a CLOB cannot be compared with <> in SQL, ORA-00932)
RETENTION_DIFFERS = "DBMS_LOB.COMPARE({column}, TO_CLOB(:{bind})) <> 0"
RETENTION_DELETE = Inline(
    "DELETE FROM {table} WHERE tenant_id = :tenant AND {key} {in_keys}", "sql", ("tenant", "keys")
)
RETENTION_UPDATE = Inline(
    "UPDATE {table} SET {assignments} WHERE tenant_id = :tenant AND {key} {in_keys}",
    "sql",
    ("tenant", "keys", "v_content"),
)

# -- export, import, consolidation (manager/backend/portable_rows.py composes them) -------------
# Run by the app account on a walled session (VPD adds the caller's predicate): whole rows by key,
# and an update of named columns of one row. {table}, {key} and {assignments} are built from the
# retention registry's checked identifiers; values are binds (the static check's sample
# assignment binds :v_content).
PORTABLE_SELECT_KEYS = Inline("SELECT * FROM {table} WHERE {key} {in_keys} ORDER BY {key}", "sql", ("keys",))
PORTABLE_UPDATE_KEY = Inline("UPDATE {table} SET {assignments} WHERE {key} = :key", "sql", ("key", "v_content"))

# After an erasure or expiry: merge the Oracle Text index so the removed rows' tokens leave $I too
# (a delete only marks the row as gone until the index is optimized; Oracle Text Reference,
# CTX_DDL.OPTIMIZE_INDEX, FULL mode). The owner has EXECUTE on CTX_DDL (010).
OPTIMIZE_TEXT_INDEX = Inline("BEGIN CTX_DDL.OPTIMIZE_INDEX('kb_chunk_text_ix', 'FULL'); END;", "plsql")
# The same for conversation recall's text index (026): an erased turn's tokens leave its $I table.
OPTIMIZE_RECALL_TEXT_INDEX = Inline(
    "BEGIN CTX_DDL.OPTIMIZE_INDEX('conversation_recall_text_ix', 'FULL'); END;", "plsql"
)

ALL: dict[str, Inline] = {name: value for name, value in globals().items() if isinstance(value, Inline)}
