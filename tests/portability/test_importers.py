"""Importers from other tools: each record a proposal to the promotion gate, resting on the imported file
stored as a source document in the importing scope. A fixture of each format is written here."""

from __future__ import annotations

import json
import textwrap

import pytest
from backend_helpers import operator_rows
from cli_helpers import cli_runner

from memgate.manager import ACME, Identity, InvalidArgument, propose_file, seed_demo

MCP_GRAPH = (
    "\n".join(
        json.dumps(line)
        for line in (
            {"type": "entity", "name": "John_Smith", "entityType": "person", "observations": ["Speaks fluent Spanish"]},
            {
                "type": "entity",
                "name": "Anthropic",
                "entityType": "organization",
                "observations": ["Builds AI assistants"],
            },
            {"type": "relation", "from": "John_Smith", "to": "Anthropic", "relationType": "works_at"},
            {
                "type": "entity",
                "name": "Mary",
                "entityType": "person",
                "observations": ["Her phone is +1 555 867 5309"],
            },
        )
    )
    + "\n{not json\n"
)

BASIC_MEMORY = textwrap.dedent(
    """\
    ---
    title: Coffee Brewing Methods
    type: note
    tags: [coffee, brewing]
    permalink: coffee-brewing-methods
    ---

    # Coffee Brewing Methods

    ## Observations
    - [method] Pour over provides more flavor clarity than French press
    - [technique] Water temperature at 205F extracts optimal compounds #brewing (from the barista course)
    - [ ] a task, not an observation

    ## Relations
    - relates_to [[Coffee Bean Origins]]
    - requires [[Proper Grinding Technique]]

    Grinding fresh matters, see [[Burr Grinders]].
    """
)

PLAIN = "\n".join(
    json.dumps(line)
    for line in (
        {"memory": "Prefers vegetarian restaurants", "user_id": "jane", "created_at": "2025-11-02T10:00:00Z"},
        {"text": "Works on the billing team", "user": "jane", "created": "2025-11-03"},
        {"text": "Lives in Lisbon", "subject": "person:bob", "predicate": "city", "user": "bob"},
        {"text": "The office closes at 6pm"},
        {"user": "jane"},
    )
)


@pytest.fixture
def demo(manager):
    seed_demo(manager)
    from memgate.manager import load_tool_definitions

    manager.seed_tools(ACME, load_tool_definitions())
    return manager


def _candidates(manager, **where):
    clause = " AND ".join(f"{k} = :{k}" for k in where)
    return operator_rows(manager.backend, "memory_candidate", f"WHERE tenant_id = 'acme' AND {clause}", where)


def test_mcp_memory_graph_observations_become_notes_relations_facts_through_the_gate(demo, tmp_path):
    path = tmp_path / "memory.jsonl"
    path.write_text(MCP_GRAPH)
    report = propose_file(demo, "acme", "mcp-memory", path, user="jane")
    assert report.decisions == {"promoted": 3, "pending": 0, "duplicate": 0, "refused": 1}, report
    assert report.rules == {"deny:phone": 1}  # the gate's own checks apply to imports
    assert report.skipped == ["memory.jsonl line 5: not JSON"]
    jane = Identity(tenant="acme", user="jane")
    claims, _ = demo.lookup_claims(jane, "John_Smith", "works_at")
    assert claims[0].current.row["content"] == "Anthropic" and claims[0].current.row["user_id"] == "jane"
    # provenance: each candidate rests on a chunk of the stored file, a document of jane's
    [doc] = operator_rows(demo.backend, "knowledge_base_document", "WHERE collection = 'imported'")
    assert (doc["user_id"], doc["title"]) == ("jane", "mcp-memory import: memory.jsonl")
    assert doc["source_uri"].startswith("import://mcp-memory/memory.jsonl#sha256=")
    chunks = {
        c["id"] for c in operator_rows(demo.backend, "knowledge_base_chunk", "WHERE document_id = :d", {"d": doc["id"]})
    }
    made = _candidates(demo, created_by="import:mcp-memory")
    assert len(made) == 3 and all({e["id"] for e in json.loads(c["evidence_json"])} <= chunks for c in made)
    assert {c["user_id"] for c in made} == {"jane"}
    # bob does not see jane's imported memories
    assert "fluent Spanish" not in demo.search_memory(Identity(tenant="acme", user="bob"), "Spanish").text
    assert "fluent Spanish" in demo.search_memory(jane, "speaks Spanish").text
    # the same file again: the same source document, every memory a duplicate, nothing new
    again = propose_file(demo, "acme", "mcp-memory", path, user="jane")
    assert again.decisions["duplicate"] == 3 and again.documents == report.documents


def test_basic_memory_notes_observations_and_relations(demo, tmp_path):
    folder = tmp_path / "notes"
    (folder / "coffee").mkdir(parents=True)
    (folder / "coffee" / "brewing.md").write_text(BASIC_MEMORY)
    report = propose_file(demo, "acme", "basic-memory", folder, agent="research-assistant")
    # an inline [[link]] is a links_to fact the text itself does not state: the gate holds it for review
    assert report.proposed == 5 and report.decisions["promoted"] == 4, report
    assert report.decisions["pending"] == 1 and report.rules == {"assessment:supported": 1}, report
    [held] = _candidates(demo, created_by="import:basic-memory", decision="pending")
    assert (held["predicate"], held["content"]) == ("links_to", "Burr Grinders")
    agent = Identity(tenant="acme", agent="research-assistant")
    claims, _ = demo.lookup_claims(agent, "Coffee Brewing Methods")
    assert {(c.predicate, c.current.row["content"]) for c in claims} == {
        ("relates_to", "Coffee Bean Origins"),
        ("requires", "Proper Grinding Technique"),
    }
    assert {c.current.row["agent_id"] for c in claims} == {"research-assistant"}
    found = demo.search_memory(agent, "pour over flavor clarity").text
    assert "Coffee Brewing Methods (method): Pour over provides more flavor clarity than French press" in found


def test_a_plain_jsonl_of_memories_keeps_each_users_lines_apart(demo, tmp_path, sqlite_path, monkeypatch):
    path = tmp_path / "mem0.jsonl"
    path.write_text(PLAIN)
    invoke = cli_runner(sqlite_path, monkeypatch)
    dry = invoke("import", str(path), "--from", "jsonl", "-t", "acme", "--dry-run").output
    assert "would propose note [user jane] 'Prefers vegetarian restaurants' (mem0.jsonl (user jane) line 1)" in dry
    assert "would propose fact [user bob] 'person:bob city = Lives in Lisbon'" in dry
    assert "would propose note [tenant] 'The office closes at 6pm'" in dry
    assert "skipped mem0.jsonl (user jane) line 5: no text, memory or content" in dry
    assert "would propose 4 memories" in dry and not _candidates(demo, created_by="import:jsonl")
    out = invoke("import", str(path), "--from", "jsonl", "-t", "acme").output
    assert "proposed 4 memories from" in out and "4 promoted" in out, out
    docs = operator_rows(demo.backend, "knowledge_base_document", "WHERE collection = 'imported' ORDER BY user_id")
    assert [(d["user_id"], d["title"]) for d in docs] == [
        (None, "jsonl import: mem0.jsonl"),
        ("bob", "jsonl import: mem0.jsonl (user bob)"),
        ("jane", "jsonl import: mem0.jsonl (user jane)"),
    ]
    # a user's source holds only that user's lines (and keeps their created time)
    chunks = operator_rows(demo.backend, "knowledge_base_chunk", "WHERE document_id = :d", {"d": docs[2]["id"]})
    text = " ".join(c["content"] for c in chunks)
    assert "vegetarian" in text and "2025-11-02T10:00:00Z" in text and "Lisbon" not in text
    # proposing for one user takes that user's lines and those naming none, and says what it left
    only = propose_file(demo, "acme", "jsonl", path, user="bob", dry_run=True)
    assert only.proposed == 2 and any("2 record(s) of user jane, not bob" in s for s in only.skipped)


def test_bad_input_is_named_and_nothing_is_stored(demo, tmp_path):
    with pytest.raises(InvalidArgument, match="does not exist"):
        propose_file(demo, "acme", "jsonl", tmp_path / "missing.jsonl")
    path = tmp_path / "m.jsonl"
    path.write_text(PLAIN)
    with pytest.raises(InvalidArgument, match="format must be one of mcp-memory, basic-memory, jsonl"):
        propose_file(demo, "acme", "csv", path)
    with pytest.raises(InvalidArgument, match="not both"):
        propose_file(demo, "acme", "jsonl", path, user="jane", agent="research-assistant")
    assert not operator_rows(demo.backend, "knowledge_base_document", "WHERE collection = 'imported'")
