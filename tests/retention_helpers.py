"""The marker scan's parts: writers that put a subject's marker into every table of the retention
registry, and the reads that find where it still is (every table, FTS5 shadow table, the file's
bytes) and whose rows a table still holds.

`WRITERS` maps every table the registry names to the writer that reaches it, each writing the way
memgate writes that table (an MCP tool call, a manager method, or for the rows only an operator or
a seed writes, an insert through the subject's own walled session). The marker scan
(tests/retention/test_forget_marker_scan.py) checks the two name the same tables, runs every writer
once, and proves each registered table holds the subject's rows (and, where its content can carry
it, the marker) before `forget`, and none after. A table added to the registry needs one writer
here, e.g.

    @writes("memory_export")
    def _export(w: Writing) -> None:
        w.manager.export_memory(w.who, note=f"export {w.marker}")
"""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backend_helpers import operator_rows
from memory_helpers import call
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from memgate.manager import Identity, load_tool_definitions
from memgate.manager.retention import REGISTRY


def subject_rows(backend, table: str, user: str) -> list[dict]:
    """`user`'s rows of a walled table, read as the operator: by its own user_id, or for a table scoped
    through its owner (a memory file through its store, as the retention registry says), by the owner's."""
    spec = next((s for s in REGISTRY if s.table == table), None)
    if spec is None or spec.through is None:
        return operator_rows(backend, table, "WHERE user_id = :u", {"u": user})
    column, owner, key = spec.through
    where = f"WHERE {column} IN (SELECT {key} FROM {backend.physical_table(owner)} WHERE user_id = :u)"
    return operator_rows(backend, table, where, {"u": user})


def table_hits(path: Path, marker: str) -> dict[str, int]:
    """Rows holding `marker` (as text or bytes, any case) per table of the file, FTS5 shadow tables included."""
    needle, raw = marker.lower(), marker.lower().encode()
    hits: dict[str, int] = {}
    conn = sqlite3.connect(path)
    try:
        names = [
            n
            for (n, sql) in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall()
            if "VIRTUAL TABLE" not in (sql or "").upper()
        ]
        for name in names:
            n = 0
            for row in conn.execute(f'SELECT * FROM "{name}"'):
                for value in row:
                    if (
                        isinstance(value, str)
                        and needle in value.lower()
                        or isinstance(value, bytes)
                        and raw in value.lower()
                    ):
                        n += 1
            if n:
                hits[name] = n
    finally:
        conn.close()
    return hits


def file_hits(path: Path, marker: str) -> int:
    """Occurrences of `marker` (any case) in the bytes of the database file and its WAL, if any."""
    raw = marker.lower().encode()
    total = 0
    for p in (path, Path(f"{path}-wal")):
        if p.exists():
            total += p.read_bytes().lower().count(raw)
    return total


def fts_matches(path: Path, marker: str, indexes: tuple[str, ...] = ("base_kb_fts", "base_recall_fts")) -> int:
    """Rows any tenant's lexical indexes (chunks, conversation recall; or only `indexes`) match `marker`
    for (read with the indexes themselves)."""
    conn = sqlite3.connect(path)
    try:
        slots = [s for (s,) in conn.execute("SELECT slot FROM base_kb_lexical_index").fetchall()]
        return sum(
            conn.execute(f"SELECT count(*) FROM {index}_{s} WHERE {index}_{s} MATCH ?", (marker,)).fetchone()[0]
            for s in slots
            for index in indexes
        )
    finally:
        conn.close()


# -- the writers --------------------------------------------------------------------------------------
#: the memory tool on the caller's own user store (the default row writes the agent's store)
USER_MEMORY_ROW = {
    "tool_name": "memory_mine",
    "tool_handler": "memory",
    "usage_notes": "The caller's own memory files.",
    "access_policy": {"memory_store": {"scope": "user"}},
}


def user_memory_row() -> dict[str, Any]:
    schema = next(t for t in load_tool_definitions() if t["tool_name"] == "memory_write")["tool_schema"]
    return {**USER_MEMORY_ROW, "tool_schema": schema}


def png_with_text(text: str) -> bytes:
    """A PNG whose bytes carry `text` (a tEXt chunk): image bytes hold content too."""
    info = PngInfo()
    info.add_text("Comment", text)
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (10, 20, 30)).save(out, "PNG", pnginfo=info)
    return out.getvalue()


@dataclass
class Writing:
    """What a writer needs: the manager, whose rows it writes, the marker, and the ids written so far."""

    manager: Any
    who: Identity
    marker: str
    tmp_path: Path
    #: a tenant-wide document another row may point at
    shared_doc: str
    ids: dict[str, str] = field(default_factory=dict)

    def insert(self, table: str, row: dict[str, Any]) -> None:
        """One row through the subject's own walled session (the wall stamps and checks its scope)."""
        with self.manager.backend.session(self.who) as s, s.transaction():
            s.insert(table, {"tenant_id": self.who.tenant, "user_id": self.who.user, **row})


Writer = Callable[[Writing], None]
#: table -> the writer that puts the marker there (one writer may reach several tables)
WRITERS: dict[str, Writer] = {}


def writes(*tables: str) -> Callable[[Writer], Writer]:
    def register(writer: Writer) -> Writer:
        for table in tables:
            assert table not in WRITERS, f"two writers for {table}"
            WRITERS[table] = writer
        return writer

    return register


@writes("memory_store", "memory_file")
def _memory_file(w: Writing) -> None:
    """The MCP memory tool on the caller's user store (its call lands in the call log too)."""
    is_error, text = call(
        w.manager, w.who, "memory_mine", command="create", path="/memories/notes.md", file_text=f"remember {w.marker}"
    )
    assert not is_error, text


@writes("mcp_call_log")
def _call_arguments(w: Writing) -> None:
    """Tool arguments: a search that names the marker."""
    is_error, text = call(w.manager, w.who, "search_memory", query=f"{w.marker} plans")
    assert not is_error, text


@writes("knowledge_base_document", "knowledge_base_chunk")
def _document(w: Writing) -> None:
    """Ingest: a document of the user's (chunks, the FTS5 index, embeddings)."""
    doc = w.manager.ingest_text(
        w.who,
        title=f"plan {w.marker}",
        text=f"The plan {w.marker} is ready. " * 20,
        source_uri=f"memo://{w.who.user}/plan",
        user_id=w.who.user,
    )
    w.ids["document"] = doc.document_id


@writes("mcp_call_cited")
def _cited(w: Writing) -> None:
    """A search whose result cites the user's document: each cited id, one row in the call's scope."""
    is_error, text = call(w.manager, w.who, "search_memory", query=f"plan {w.marker}")
    assert not is_error and w.marker in text, text


@writes("image_memory")
def _image(w: Writing) -> None:
    """An image with a description, its bytes carrying the marker too."""
    path = w.tmp_path / f"{w.who.user}.png"
    path.write_bytes(png_with_text(f"exif {w.marker}"))
    w.ids["image"] = w.manager.ingest_file(
        w.who, path, user_id=w.who.user, description=f"a photo of {w.marker}"
    ).image_id


@writes("conversation", "conversation_memory", "conversation_recall")
def _turns_and_window(w: Writing) -> None:
    """Turns (one with an image part, stored with the turn) in the user's conversation, each indexed for recall,
    then a context window and its manifest."""
    turn = w.manager.record_turn(
        w.who,
        "user",
        [
            {"type": "text", "text": f"hello {w.marker}"},
            {"type": "image", "data": png_with_text(f"turn {w.marker}"), "name": "t.png", "description": w.marker},
        ],
    )
    w.ids["turn"] = turn["id"]
    for n in range(3):
        w.manager.record_turn(w.who, "assistant" if n % 2 == 0 else "user", f"turn {n} on {w.marker}")
    w.manager.assemble_context(w.who, f"what is {w.marker}?", "fact_check")


@writes("summarization_memory")
def _summary(w: Writing) -> None:
    """Compaction: the oldest turns summarised into a summary row."""
    assert w.manager.compact_conversation(w.who, "fact_check", force=True) is not None


@writes("entity_memory")
def _claim(w: Writing) -> None:
    w.manager.correct_entity(w.who, f"customer:{w.who.user}", "note", f"prefers {w.marker}", user_id=w.who.user)


@writes("memory_link")
def _link(w: Writing) -> None:
    """A link with a note, from the user's document to the shared one."""
    w.manager.add_link(w.who, w.ids["document"], "supports", w.shared_doc, note=f"because {w.marker}")


@writes("memory_candidate", "memory_assessment")
def _remembered(w: Writing) -> None:
    """remember: a note resting on the user's own turn (candidate, assessment, the promoted record, its link)."""
    remembered = w.manager.remember(w.who, f"The user's code word is {w.marker}.", "note", evidence=[w.ids["turn"]])
    assert remembered.text.split()[0] in ("promoted", "pending"), remembered.text


@writes("merge_candidate")
def _merge(w: Writing) -> None:
    """`memgate consolidate --apply`: two of the user's notes that say the same thing, one merge proposed."""
    from memgate.manager import consolidate

    for n in range(2):
        w.manager.ingest_text(
            w.who,
            title=f"deploy memo {n}",
            text=f"Deploy the {w.marker} service on Fridays after the review.",
            source_uri=f"memo://{w.who.user}/deploy-{n}",
            user_id=w.who.user,
        )
    report = consolidate(w.manager.backend, w.manager.embedder, w.who.tenant, "user", w.who.user, apply=True)
    assert report.recorded, report


@writes("guideline_memory")
def _guideline(w: Writing) -> None:
    w.insert("guideline_memory", {"id": f"gdl_{w.who.user}", "guideline_key": "tone", "content": f"say {w.marker}"})


@writes("persona_memory")
def _persona(w: Writing) -> None:
    w.insert("persona_memory", {"id": f"per_{w.who.user}", "name": f"{w.marker} aide", "content": f"be {w.marker}"})


@writes("workflow_memory")
def _workflow(w: Writing) -> None:
    w.insert(
        "workflow_memory",
        {
            "id": f"wfl_{w.who.user}",
            "workflow_key": "morning",
            "title": f"morning {w.marker}",
            "content": f"start with {w.marker}",
            "steps_json": json.dumps([f"open {w.marker}"]),
        },
    )


@writes("toolbox_memory")
def _tool_row(w: Writing) -> None:
    """A toolbox row of the user's own (a row's scope makes it theirs, as for every other table)."""
    lookup = next(t for t in load_tool_definitions() if t["tool_name"] == "lookup_entity")
    w.insert(
        "toolbox_memory",
        {
            "id": f"tool_{w.who.user}",
            "tool_name": "lookup_entity",
            "tool_schema": json.dumps(lookup["tool_schema"]),
            "usage_notes": f"{w.marker}: the user's own lookup.",
            "tool_handler": "lookup_entity",
        },
    )


def write_everything(w: Writing) -> dict[str, str]:
    """Run every writer once, in the order they are declared; the ids written."""
    for writer in dict.fromkeys(WRITERS.values()):
        writer(w)
    return w.ids
