"""The seam between the manager and a database dialect: the whole contract, declared.

Manager code calls these methods only; each backend loads its statements from
sql/<dialect>/<name>.sql, so the manager holds no dialect SQL and no dialect `if`.
Statements use named parameters (`:tenant`), which sqlite3 and python-oracledb both
accept. What differs by dialect and is not a statement (the SQL grammar admission
parses, how text is matched lexically, how vectors are stored and compared) is behind
`QueryDialect` and the session's two retrieval legs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np

from ..identity import Identity

Row = dict[str, Any]
#: execute_query's reviewed views: view name -> ((column, declared type or None), ...)
ViewCatalog = dict[str, tuple[tuple[str, str | None], ...]]


@dataclass(frozen=True, slots=True)
class BinaryLength:
    """A binary value in a query result, by its length alone.

    A cell shows a blob as its size and a vector as its dimension, so a backend may drop
    the bytes as it reads each row instead of holding them.
    """

    size: int


class QueryRows(NamedTuple):
    """A read-only query's result: at most max_rows rows, and whether more exist.

    Text values may arrive already cut to the cell width asked for, binary ones as
    BinaryLength.
    """

    columns: list[str]
    #: per column, the declared type behind it (e.g. CLOB, VECTOR), None for expressions
    declared_types: list[str | None]
    rows: list[tuple]
    truncated: bool


@dataclass(frozen=True)
class QueryDialect:
    """What execute_query's admission needs to know of the backend's SQL grammar.

    Admission (manager/query/admission.py) walks a sqlglot tree with dialect-free rules;
    the grammar, the names functions go by and how identifiers fold come from here.
    """

    #: shown to the model: "SQLite", "Oracle"
    name: str
    #: a sqlglot Dialect instance, for tokenizing
    sqlglot_dialect: Any
    #: a sqlglot Parser subclass that keeps every function call under its written name
    parser: type
    #: one string literal of the dialect, exactly
    string_literal: re.Pattern[str]
    #: functions a query may call, in folded form
    allowed_functions: frozenset[str]
    #: typed sqlglot nodes that the database runs as functions -> the name its wall sees
    operator_functions: Mapping[type, str] = field(default_factory=dict)
    #: how the database folds unquoted names (SQLite: ASCII lower-case)
    fold: Callable[[str], str] = str.lower
    #: folded function name -> a check of a call's argument nodes (sqlglot expressions) that
    #: returns why the call would cost more than the database itself bounds, or None
    call_limits: Mapping[str, Callable[[Sequence[Any]], str | None]] = field(default_factory=dict)
    #: bind names (folded) the database refuses unquoted, so a report naming one is refused when
    #: it is written rather than failing on every call (Oracle: its reserved words, ORA-01745)
    reserved_bind_names: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ChunkFilters:
    """What narrows a knowledge-base search besides the wall: collection, document, lifecycle time.

    Statements bind `ended` (1 or 0) for include_ended.
    """

    now: str
    collection: str | None = None
    document_id: str | None = None
    #: also rows whose lifecycle ended by `now` (valid_until passed); deleted rows never
    include_ended: bool = False

    def binds(self) -> dict[str, Any]:
        """The binds every retrieval statement filters on. Scope (user, agent, thread) is the wall's:
        the views filter it, no statement repeats it."""
        return {
            "collection": self.collection,
            "document": self.document_id,
            "now": self.now,
            "ended": 1 if self.include_ended else 0,
        }


@dataclass(frozen=True)
class RecallFilters:
    """Which conversation recall rows a leg ranks besides the wall: the recall policy's narrowing,
    decided before anything is ranked. The wall already keeps every other tenant's and user's rows out;
    these only narrow: the user exactly the caller's (not also the rows of no user), the agent exactly
    the caller's unless `any_agent` (the user's conversations with every agent the wall shows it), and,
    with `conversation`, that conversation alone."""

    user: str | None
    agent: str | None
    any_agent: bool = False
    conversation: str | None = None

    def policy_binds(self) -> dict[str, Any]:
        """The binds the recall legs' statements filter on."""
        return {
            "user_id": self.user,
            "agent_id": self.agent,
            "any_agent": 1 if self.any_agent else 0,
            "conversation": self.conversation,
        }


@dataclass(frozen=True)
class TermStats:
    """What the bound tenant's lexical index says of a query's words: how many of its chunks hold each
    word (0: none does), out of how many chunks (calibrated relevance weighs a word by its rarity)."""

    #: chunks the index holds
    chunks: int
    #: word -> chunks holding it, for each word asked about
    holding: Mapping[str, int]


class Session(Protocol):
    """A connection checked out under one caller's trusted context."""

    def fetch_all(self, statement: str, **params: Any) -> list[Row]:
        """Run the named statement and return every row."""

    def fetch_one(self, statement: str, **params: Any) -> Row | None:
        """Run the named statement and return its first row, or None."""

    def fetch_page(self, statement: str, limit: int, **params: Any) -> tuple[list[Row], bool]:
        """Fetch at most `limit` rows, and whether more exist (reads limit + 1)."""

    def execute(self, statement: str, **params: Any) -> None:
        """Run a named write statement. A 1-D float32 numpy array binds as the backend's vector type."""

    def insert(self, table: str, row: Row) -> None:
        """Insert one row into a logical (walled) table; numpy vectors as in execute()."""

    def insert_many(self, table: str, rows: Sequence[Row]) -> None:
        """Insert rows that all have the same columns into a logical (walled) table, as insert() would
        one by one (the driver may send them as one batch)."""

    def transaction(self) -> AbstractContextManager[None]:
        """An atomic unit: everything inside commits together or not at all."""

    def raw(self, sql: str, params: Mapping[str, Any] | tuple = ()) -> list[Row]:
        """Literal SQL of this backend's dialect under this session's wall (tests, operator checks)."""

    def kb_lexical(self, query: str, limit: int, filters: ChunkFilters) -> list[tuple[int, float]]:
        """The lexical leg: up to `limit` (chunk seq, score) best first, among chunks the caller may see.

        The score is the backend's own (BM25, Oracle Text SCORE), higher is better, and only
        comparable within one call. Any word of `query` may match; no word is query syntax.
        """

    def kb_vector(self, vector: np.ndarray, model: str, limit: int, filters: ChunkFilters) -> list[tuple[int, float]]:
        """The vector leg: up to `limit` (chunk seq, cosine) best first, cosine > 0, among visible chunks."""

    def recall_lexical(self, query: str, limit: int, filters: RecallFilters) -> list[tuple[int, float]]:
        """Conversation recall's lexical leg: up to `limit` (recall seq, score) best first, among the turns
        and summaries the caller may see that `filters` keep; the score is the backend's own, as kb_lexical's."""

    def recall_vector(
        self, vector: np.ndarray, model: str, limit: int, filters: RecallFilters
    ) -> list[tuple[int, float]]:
        """Conversation recall's vector leg: up to `limit` (recall seq, cosine) best first, cosine > 0."""

    def kb_term_stats(self, words: Sequence[str], *, exclude_document: str | None = None) -> TermStats:
        """How many chunks of the bound tenant's lexical index hold each of `words` (each read as the
        lexical leg reads it), and how many chunks the index holds; the chunks of `exclude_document`
        are not counted. The counts are the tenant's own, never another tenant's (SQLite: its FTS5
        index's vocabulary, the statistics its BM25 already ranks by; Oracle: the caller's chunks)."""

    def change_marker(self) -> dict[str, Any]:
        """What the database can say of this moment, for a context manifest: a JSON object with `kind`.

        Oracle: {"kind": "oracle_scn", "scn": <the current SCN>}, which as_of() reads at.
        SQLite has no change number: {"kind": "sqlite_versions_read"}, and the manifest's list
        of row versions read is the whole marker. Replay reads the versions a manifest names as
        they are now; asked to, it reads them as of the marker, where the backend keeps one.
        """

    def as_of(self, marker: Mapping[str, Any]) -> AbstractContextManager[None]:
        """Every read inside sees the database as it was at `marker` (a change_marker() of this
        backend), through the same wall; nothing may be written inside.

        Oracle: session-level Flashback at the marker's SCN; VPD still applies, with the
        caller's context. A moment older than the undo the database keeps raises NotFound
        naming undo retention. SQLite numbers no changes: NotFound, saying so.
        """


class InstallCheck(NamedTuple):
    """One post-install check `memgate doctor` prints: what, whether it holds, and the fix when not."""

    name: str
    #: True holds, False fails, None a warning (worth knowing, or not checked, and why)
    ok: bool | None
    detail: str
    fix: str = ""


class Backend(Protocol):
    #: "sqlite" or "oracle": the folder under sql/ its statements come from
    dialect: str
    #: the grammar execute_query admission parses
    query_dialect: QueryDialect
    #: whole rows by key on a walled session (export, import, consolidation): a PortableSql
    #: (manager/backend/portable_rows.py)
    portable_sql: Any

    def session(self, identity: Identity, *, now: str | None = None) -> AbstractContextManager[Session]:
        """Check out a connection, bind the identity's tenant and scope (user, agent, thread), clear them on exit.

        `now`, when given, is the session's one evaluation time: statements read it as app_now().

        Every read and write of the session goes through the wall: rows of another tenant,
        or scoped to another user, agent or thread, are neither seen nor written.
        """

    def operator_session(self) -> AbstractContextManager[Session]:
        """A session for operator-only statements that span tenants (e.g. `memgate log`).

        No tool can reach it; its raw() names tables by `physical_table()`.
        """

    def retention_store(self, tenant: str) -> AbstractContextManager[Any]:
        """A RetentionStore (manager/backend/retention_store.py) over `tenant`'s rows whatever their
        scope, for `memgate forget` and `memgate expire` (operator only; no tool reaches it)."""

    def merge_lexical_indexes(self, tenant: str, pages: int) -> dict[str, str]:
        """Merge the tenant's lexical indexes so a query reads each term in one place (`memgate optimize`):
        index -> what was done. SQLite: its two FTS5 indexes into one segment each, about `pages` leaf
        pages per write transaction. Oracle: the shared Oracle Text indexes optimized (FULL)."""

    def physical_table(self, table: str) -> str:
        """The name an operator session reads a logical table by (SQLite: base_<table>)."""

    def tables(self) -> list[str]:
        """The logical tables under the tenant wall."""

    def migrate(self) -> tuple[int, int]:
        """Create or upgrade the schema; returns (version before, version after)."""

    def check_schema(self) -> None:
        """Raise SchemaMismatch unless the schema is the one this memgate knows."""

    def schema_version(self) -> int:
        """The schema version the database records; 0 for one memgate never initialised."""

    def known_schema_version(self) -> int:
        """The schema version this memgate's migrations reach."""

    def describe(self) -> dict[str, Any]:
        """What `memgate doctor` shows about the database (never secrets)."""

    def install_checks(self) -> list[InstallCheck]:
        """`memgate doctor`'s checks of what the install made (objects valid, policies, indexes),
        each failing one with its fix; empty where check_schema() already says it all (SQLite)."""

    def run_readonly_query(
        self,
        identity: Identity,
        sql: str,
        max_rows: int,
        timeout_s: float,
        now: str,
        max_chars: int = 500,
        binds: Mapping[str, Any] | None = None,
    ) -> QueryRows:
        """Run one admitted SELECT on the read-only, walled query connection (execute_query, reports).

        The wall is the database's: SQLite's read-only connection and authorizer, Oracle's
        read-only account with READ on the reviewed views under VPD. The reviewed views
        hold the caller's tenant and scope, and show rows current at `now` (the call's one
        evaluation time); `<table>_history` views show every version with its status.
        Raises QueryRejected, QueryTimeout or BackendUnavailable, never a driver error.
        It ends the query, and its use of CPU, at timeout_s. Each text value needs to keep
        only max_chars + 1 characters, each binary value only its length: no more than one
        raw row is held. `binds` are the values of the statement's `:name` parameters (a
        report's), bound by the driver, never spliced into the text.
        """

    def query_catalog(self) -> ViewCatalog:
        """The reviewed views execute_query may read, with their columns and declared types."""

    def set_call_timeout(self, seconds: float) -> None:
        """Bound each database round trip of a walled session to `seconds` (the manager passes
        caps.query_timeout_s); a round trip past it ends the call with QueryTimeout.

        Oracle: python-oracledb's Connection.call_timeout, set on every acquire (the server is
        told to stop, and the session is dropped from the pool). SQLite runs each statement
        in-process, with lock waits bounded by busy_timeout: there is no round trip to bound.
        """

    def set_query_temp_caps(self, query_mb: int, total_mb: int) -> None:
        """Bound the temporary storage of execute_query (the manager passes caps.query_temp_mb and
        caps.query_temp_total_mb): one query, and all running queries of this process together.

        SQLite measures its queries' temp files and stops a query past either (temp_space.py).
        Oracle's temp space is the DBA's: the query account's temporary tablespace and its
        profile or resource plan bound it (docs/oracle.md); memgate sets nothing there.
        """

    def database_embedder(self) -> Any | None:
        """An embedder the database runs itself (an object with `name` and `embed(texts) -> ndarray`,
        like manager/kb/embed.py's), or None to use the local one."""

    def close(self) -> None:
        """Close every pooled connection."""
