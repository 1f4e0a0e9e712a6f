"""Files other memory tools write, read as proposals for the promotion gate (propose.py sends them).

Three formats:

- `mcp-memory`: the MCP reference memory server's knowledge graph (memory.jsonl): one JSON object
  a line, `{"type": "entity", "name", "entityType", "observations": [...]}` or
  `{"type": "relation", "from", "to", "relationType"}`. Each observation is a note
  ("John_Smith (person): Speaks fluent Spanish"); each relation a fact (subject `from`,
  predicate `relationType`, value `to`), which lookup_entity answers.
- `basic-memory`: basic-memory's Markdown notes (a file, or a folder of them): YAML front matter
  (title, type, tags, permalink), observations `- [category] text #tag (context)` and relations
  `- relation_type [[Target]]`, wherever they are in the note; a `[[Target]]` in other text is a
  `links_to` relation. Each observation is a note ("Coffee Brewing Methods (method): Pour over ..."),
  each relation a fact (subject the note's title).
- `jsonl`: one memory a line, `{"text": ..., "subject"?, "predicate"?, "user"?, "created_at"?}`;
  `memory` or `content` may stand for `text` and `user_id` for `user` (mem0's and OpenMemory's
  exports), `created` for `created_at`. A line with a subject and predicate is a fact. Lines of
  different users are separate sources, so one user's lines are never evidence for another's.

A source is the text stored as the proposals' evidence (a file, or one user's lines of it); each
record names the spans of that text it rests on, so its evidence is the stored chunks holding them.
A line that is no record is reported by number, never guessed at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import InvalidArgument

__all__ = ["FORMATS", "Record", "Source", "read_sources"]

FORMATS = ("mcp-memory", "basic-memory", "jsonl")
_OBSERVATION = re.compile(r"^\s*[-*]\s+\[([^\]\[]+)\]\s+(.+?)\s*$")
_RELATION = re.compile(r"^\s*[-*]\s+([A-Za-z][\w -]*?)\s+\[\[([^\]]+)\]\]\s*(?:\((.*)\))?\s*$")
_WIKILINK = re.compile(r"\[\[([^\]]+)\]\]")
_CONTEXT = re.compile(r"\s*\(([^()]*)\)\s*$")
#: an observation's #tags: basic-memory's labels for finding it, not what it says
_TAG = re.compile(r"(?<!\S)#[\w-]+")


@dataclass(frozen=True)
class Record:
    """One proposal: what it says and which spans of its source's text it rests on."""

    kind: str  # note | fact
    content: str
    spans: tuple[tuple[int, int], ...]
    where: str  # "line 3", "Observations: line 9"
    subject: str | None = None
    predicate: str | None = None
    created_at: str | None = None


@dataclass
class Source:
    """Text stored as the evidence of its records (the file, or one user's lines of it)."""

    name: str
    text: str
    user: str | None = None
    records: list[Record] = field(default_factory=list)
    #: "line 7: why" for each line that is no record
    skipped: list[str] = field(default_factory=list)


def read_sources(fmt: str, path: Path) -> list[Source]:
    """The sources a file (or, for basic-memory, a folder of notes) holds."""
    if fmt not in FORMATS:
        raise InvalidArgument(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}", field="from")
    if fmt == "basic-memory":
        files = sorted(path.rglob("*.md")) if path.is_dir() else [path]
        return [_basic_memory(f.relative_to(path).as_posix() if path.is_dir() else f.name, _read(f)) for f in files]
    text = _read(path)
    return [_mcp_memory(path.name, text)] if fmt == "mcp-memory" else _jsonl(path.name, text)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidArgument(f"{path} is not UTF-8 text", field="path") from None


def _lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(number, offset, line) of each line, the newline left out."""
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        yield number, offset, line.rstrip("\r\n")
        offset += len(line)


def _json_line(line: str) -> dict | str:
    try:
        value = json.loads(line)
    except ValueError:
        return "not JSON"
    return value if isinstance(value, dict) else "not a JSON object"


# -- the MCP reference memory server's knowledge graph --------------------------------------------


def _mcp_memory(name: str, text: str) -> Source:
    source = Source(name, text)
    for number, offset, line in _lines(text):
        if not line.strip():
            continue
        obj = _json_line(line)
        span = ((offset, offset + len(line)),)
        if isinstance(obj, str):
            source.skipped.append(f"line {number}: {obj}")
        elif obj.get("type") == "entity" and isinstance(obj.get("name"), str):
            label = f"{obj['name']} ({obj['entityType']})" if isinstance(obj.get("entityType"), str) else obj["name"]
            for observation in obj.get("observations") or []:
                if isinstance(observation, str) and observation.strip():
                    source.records.append(Record("note", f"{label}: {observation.strip()}", span, f"line {number}"))
        elif obj.get("type") == "relation" and all(isinstance(obj.get(k), str) for k in ("from", "to", "relationType")):
            source.records.append(
                Record("fact", obj["to"], span, f"line {number}", subject=obj["from"], predicate=obj["relationType"])
            )
        else:
            source.skipped.append(f"line {number}: neither an entity nor a relation")
    return source


# -- basic-memory's Markdown notes ------------------------------------------------------------------


def _basic_memory(name: str, text: str) -> Source:
    source = Source(name, text)
    body_start, meta = 0, {}
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            try:
                loaded = yaml.safe_load(text[3:end])
            except yaml.YAMLError:
                loaded = None
                source.skipped.append("front matter: not YAML (the title is the file name)")
            meta = loaded if isinstance(loaded, dict) else {}
            body_start = text.find("\n", end + 4) + 1 if text.find("\n", end + 4) != -1 else len(text)
    title = str(meta.get("title") or Path(name).stem)
    title_at = text.find(title)
    title_span = ((title_at, title_at + len(title)),) if title_at != -1 else ()
    in_code = False
    for number, offset, line in _lines(text):
        if offset < body_start:
            continue
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        span = ((offset, offset + len(line)),) + title_span
        if relation := _RELATION.match(line):
            kind = relation.group(1).strip().replace(" ", "_")
            source.records.append(
                Record("fact", relation.group(2).strip(), span, f"line {number}", subject=title, predicate=kind)
            )
        elif (observation := _OBSERVATION.match(line)) and observation.group(1).strip() not in ("", "x", "X"):
            category, said = (
                observation.group(1).strip(),
                " ".join(_TAG.sub("", _CONTEXT.sub("", observation.group(2))).split()),
            )
            if said:
                source.records.append(Record("note", f"{title} ({category}): {said}", span, f"line {number}"))
        else:
            for link in _WIKILINK.findall(line):
                source.records.append(
                    Record("fact", link.strip(), span, f"line {number}", subject=title, predicate="links_to")
                )
    return source


# -- a plain JSONL of memories (mem0, OpenMemory) ---------------------------------------------------

_TEXT_KEYS, _USER_KEYS, _TIME_KEYS = ("text", "memory", "content"), ("user", "user_id"), ("created_at", "created")


def _jsonl(name: str, text: str) -> list[Source]:
    by_user: dict[str | None, list[tuple[int, str, dict]]] = {}
    skipped = []
    for number, _offset, line in _lines(text):
        if not line.strip():
            continue
        obj = _json_line(line)
        said = next((obj[k] for k in _TEXT_KEYS if isinstance(obj, dict) and isinstance(obj.get(k), str)), None)
        if isinstance(obj, str) or not said or not said.strip():
            skipped.append(f"line {number}: {obj if isinstance(obj, str) else 'no text, memory or content'}")
            continue
        user = next((str(obj[k]) for k in _USER_KEYS if obj.get(k)), None)
        by_user.setdefault(user, []).append((number, line, obj))
    sources = []
    for user, lines in by_user.items():
        source = Source(f"{name} (user {user})" if user else name, "", user)
        parts, offset = [], 0
        for number, line, obj in lines:
            span = ((offset, offset + len(line)),)
            said = next(str(obj[k]).strip() for k in _TEXT_KEYS if isinstance(obj.get(k), str))
            created = next((str(obj[k]) for k in _TIME_KEYS if obj.get(k)), None)
            subject, predicate = obj.get("subject"), obj.get("predicate")
            fact = isinstance(subject, str) and isinstance(predicate, str) and subject and predicate
            source.records.append(
                Record(
                    "fact" if fact else "note",
                    said,
                    span,
                    f"line {number}",
                    subject=subject if fact else None,
                    predicate=predicate if fact else None,
                    created_at=created,
                )
            )
            parts.append(line + "\n")
            offset += len(line) + 1
        source.text = "".join(parts)
        sources.append(source)
    if skipped:
        target = sources[0] if sources else Source(name, "")
        target.skipped += skipped
        if not sources:
            sources.append(target)
    return sources
