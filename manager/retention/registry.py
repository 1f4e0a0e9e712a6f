"""The retention registry: every table that holds memory content, and how it is erased and expired.

One `TableSpec` per table, in the order erasure visits them: a table is erased before the tables
whose rows it depends on (memory files before their stores), and the tables that only point at
other rows (links, manifests of other scopes) after everything they could point at. Erasure
(erase.py) and expiry (expire.py) know no table by name: they walk this list. A new table that
holds content gets one entry here and one writer of a marker in tests/retention_helpers.py; the
marker scan (tests/retention/test_forget_marker_scan.py) then proves it is reached, and fails for a
table of the schema that is neither registered nor exempt (with its reason) there.

To add a table (e.g. part 1's memory_candidate and memory_assessment), append an entry before
`memory_link`, e.g.:

    TableSpec("memory_candidate", content=("content", "content_json"),
              retention=(Retention("memory_candidate"),)),
    TableSpec("memory_assessment", content=("answers_json",),
              through=("candidate_id", "memory_candidate", "id")),   # only if it has no scope columns

and list the memory type in config/retention.json. Order matters only for `through`: an entry
scoped through its owner must come before the owner's entry.

`memgate export` and `memgate import` (manager/portability/) walk the same list: every table here
is exported with every column (but `local` ones), unless `not_exported` says why not; a derived
table (an index of other rows) names what rebuilds it there, and is not exported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..backend.retention_store import TableShape

__all__ = ["ERASED", "ERASED_JSON", "REGISTRY", "CarriedInto", "Retention", "TableSpec", "memory_types", "spec"]

#: what an erased call-log row's result text says (the arguments become the JSON string of it)
ERASED = "[erased]"
ERASED_JSON = '"[erased]"'


@dataclass(frozen=True)
class Retention:
    """One memory type's rule on a table: rows written before now - days leave."""

    memory_type: str
    #: the column a row's age is read from
    time_column: str = "created_at"
    #: fixed filters that pick the type's rows of a shared table
    equals: tuple[tuple[str, str], ...] = ()
    not_equals: tuple[tuple[str, str], ...] = ()
    #: (column, owner table, owner key): also the rows whose owner this rule removed
    orphans_of: tuple[str, str, str] | None = None
    #: memory types this one copies from: a copy keeps no longer than its shortest-lived source
    #: (a manifest holds the window's text, a summary its turns)
    carries: tuple[str, ...] = ()


@dataclass(frozen=True)
class CarriedInto:
    """Rows of another table that hold a value computed from a row of this one beside their own (a
    turn's embedding carries the words of the turn it replies to). When expiry removes the row, it
    clears the value in the same transaction, to be computed again from what is left."""

    #: a named statement (sql/<dialect>/NAME.sql): binds :tenant and :keys (a JSON list of this table's
    #: keys, before they go) and returns row_key, user_id, agent_id, thread_id of the rows to clear
    statement: str
    #: the table of those rows (its registry key names them) and what their value is set to
    table: str
    clear: dict[str, Any]
    #: what computes the value again, for the report
    remedy: str


@dataclass(frozen=True)
class TableSpec:
    table: str
    key: str = "id"
    #: columns that hold content (text, bytes, vectors): what erasure removes, what the scan reads
    content: tuple[str, ...] = ()
    #: delete the row, or keep it and replace its content columns (`scrub`)
    action: Literal["delete", "scrub"] = "delete"
    scrub: dict[str, Any] = field(default_factory=dict)
    #: (column, owner table, owner key) when the table has no scope columns of its own
    through: tuple[str, str, str] | None = None
    #: columns naming other rows: a row naming an erased row is erased with it
    references: tuple[str, ...] = ()
    #: whether a row's own scope columns make it the subject's (False: reached by references only)
    scoped: bool = True
    #: copies the database keeps beside the row, removed with it (documentation and the report)
    derived: tuple[str, ...] = ()
    retention: tuple[Retention, ...] = ()
    #: columns that number rows in this database only (a chunk's FTS row number): `memgate export`
    #: leaves them out and an importing database assigns its own
    local: tuple[str, ...] = ()
    #: why `memgate export` leaves the whole table out (a derived index an import rebuilds, operator
    #: bookkeeping); empty: the table's rows are exported and imported
    not_exported: str = ""
    #: the scope columns the table has (a conversation has no thread_id)
    scope_columns: tuple[str, ...] = ("user_id", "agent_id", "thread_id")
    #: a subject kind whose column here is not its scope column: {"thread": "thread_name"}
    subjects: dict[str, str] = field(default_factory=dict)
    #: values other rows computed from this table's rows, cleared when expiry removes those
    carried_into: tuple[CarriedInto, ...] = ()

    def shape(self) -> TableShape:
        """Where the retention store finds this table's rows and their scope."""
        return TableShape(self.table, self.key, self.through, self.scope_columns)

    def subject_column(self, kind: str, scope_column: str) -> str | None:
        """The column that names a subject of `kind` in this table, or None when none does."""
        if kind in self.subjects:
            return self.subjects[kind]
        return scope_column if scope_column in self.scope_columns else None


REGISTRY: tuple[TableSpec, ...] = (
    TableSpec(
        "memory_file",
        content=("path", "content"),
        through=("store_id", "memory_store", "id"),
        retention=(Retention("memory_file", time_column="updated_at"),),
    ),
    TableSpec("memory_store", content=("store_key",)),
    TableSpec(
        "knowledge_base_chunk",
        content=("content", "embedding"),
        local=("seq",),
        derived=("the tenant's FTS5 index base_kb_fts_<slot> and its shadow tables", "the vector cache"),
        retention=(Retention("knowledge_base", orphans_of=("document_id", "knowledge_base_document", "id")),),
    ),
    TableSpec(
        "knowledge_base_document",
        content=("title", "source_uri", "content", "metadata_json"),
        retention=(Retention("knowledge_base"),),
    ),
    TableSpec(
        "image_memory",
        content=("title", "source_uri", "description", "bytes"),
        retention=(Retention("image_memory"),),
    ),
    TableSpec("entity_memory", content=("subject", "predicate", "content", "content_json", "embedding")),
    TableSpec("workflow_memory", content=("title", "content", "steps_json")),
    TableSpec("guideline_memory", content=("content", "content_json")),
    TableSpec("persona_memory", content=("name", "content")),
    TableSpec("toolbox_memory", content=("tool_schema", "usage_notes", "access_policy")),
    # A conversation (its key and turn counter) is its user's and agent's; `forget --thread` erases
    # every conversation of the thread name, and with them (by reference) their turns, compaction
    # events and summaries, which carry the conversation and no thread.
    TableSpec(
        "conversation",
        content=("thread_name", "session_id"),
        scope_columns=("user_id", "agent_id"),
        subjects={"thread": "thread_name"},
    ),
    TableSpec(
        "summarization_memory",
        content=("title", "content", "source_versions_json"),
        references=("conversation_id",),
        retention=(Retention("summarization_memory", carries=("conversation_memory",)),),
    ),
    TableSpec(
        "conversation_memory",
        content=("content", "content_json"),
        references=("conversation_id",),
        derived=("context manifests and pointer maps (content_json) of the subject's windows",),
        retention=(
            Retention("conversation_memory", not_equals=(("event_type", "context_manifest"),)),
            Retention(
                "context_manifest",
                equals=(("event_type", "context_manifest"),),
                carries=("conversation_memory", "summarization_memory", "knowledge_base", "image_memory"),
            ),
        ),
        # A turn outliving the turn it replies to keeps no embedding made with that turn's words: expiry
        # clears it (the expiry path has no embedder), and `memgate reembed` embeds it from its own words.
        # Erasure needs no such step: it takes whole conversations.
        carried_into=(
            CarriedInto(
                "retention_recall_replies",
                "conversation_recall",
                {"embedding": None, "embedding_model": None},
                "embedded again from their own words by memgate reembed",
            ),
        ),
    ),
    # Conversation recall's copy of each turn and summary ("Speaker (date): text" and its embedding): the
    # source's user and agent, no thread; erased with its source (same id) or its conversation. SQLite
    # deletes it with its source by trigger too; expiry follows its source either way.
    TableSpec(
        "conversation_recall",
        content=("speaker", "content", "embedding"),
        scope_columns=("user_id", "agent_id"),
        references=("id", "conversation_id"),
        derived=("the tenant's FTS5 index base_recall_fts_<slot> and its shadow tables", "the vector cache"),
        local=("seq",),
        retention=(
            Retention(
                "conversation_memory", equals=(("kind", "turn"),), orphans_of=("id", "conversation_memory", "id")
            ),
            Retention(
                "summarization_memory", equals=(("kind", "summary"),), orphans_of=("id", "summarization_memory", "id")
            ),
        ),
    ),
    # The promotion gate's proposals and their assessments (an assessment's note may quote the
    # proposal; its own scope columns make it the subject's, and it goes with its candidate).
    TableSpec(
        "memory_candidate",
        content=("subject", "predicate", "content", "content_hash", "evidence_json"),
        retention=(Retention("memory_candidate"),),
    ),
    TableSpec(
        "memory_assessment",
        content=("note",),
        references=("candidate_id",),
        retention=(Retention("memory_candidate", orphans_of=("candidate_id", "memory_candidate", "id")),),
    ),
    TableSpec("memory_link", content=("note",), references=("from_id", "to_id")),
    # `memgate consolidate`'s proposed merges (an operator table): no content, but each names two
    # rows of its scope, so it goes with the subject and with either end
    TableSpec(
        "merge_candidate",
        key="merge_id",
        references=("from_id", "to_id"),
        not_exported="operator bookkeeping: merges `memgate consolidate` proposed for review; run it again after an import",
    ),
    # The ids an ok call's result cited, one a row, in the call's scope (calllog_cited.sql's key
    # lookup of "was this record issued to the caller"): an index of mcp_call_log.cited_ids. No
    # content; erasure deletes the subject's rows, as it does every walled row of the subject but the
    # scrubbed call log's; expiry takes them with their call (SQLite's delete trigger, and this rule
    # where there is none); export and import carry them with their calls.
    TableSpec(
        "mcp_call_cited",
        retention=(Retention("mcp_call_log", orphans_of=("call_id", "mcp_call_log", "call_id")),),
    ),
    TableSpec(
        "mcp_call_log",
        key="call_id",
        content=("arguments_json", "argument_digest", "result_text"),
        action="scrub",
        scrub={"arguments_json": ERASED_JSON, "result_text": ERASED, "argument_digest": None},
        retention=(Retention("mcp_call_log", time_column="called_at"),),
    ),
)


def spec(table: str) -> TableSpec:
    return next(s for s in REGISTRY if s.table == table)


def memory_types() -> list[str]:
    """Every memory type a retention rule can name, in registry order."""
    seen: list[str] = []
    for s in REGISTRY:
        for r in s.retention:
            if r.memory_type not in seen:
                seen.append(r.memory_type)
    return seen
