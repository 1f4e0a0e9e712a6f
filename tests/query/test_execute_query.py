"""execute_query at the manager: caps, "more rows exist", cell shaping, errors, the generated help."""

from __future__ import annotations

import re
import struct

import pytest

from memgate.manager import CapsSettings, MemoryManager, QueryRejected, QueryTimeout
from memgate.manager.demo.dataset import ACME


def _claims(backend, n: int, content: str = "c") -> None:
    with backend.session(ACME) as s, s.transaction():
        for i in range(n):
            s.insert(
                "entity_memory",
                {"id": f"ent_row_{i:03d}", "subject": f"row:{i:03d}", "predicate": "n", "content": content},
            )


def test_the_26th_row_is_never_returned_by_default(manager, backend):
    _claims(backend, 26)
    out = manager.execute_query(ACME, "SELECT subject FROM entity_memory ORDER BY subject")
    lines = out.text.splitlines()
    assert lines[0].startswith("rows: 25 | more exist: yes | row cap: 25 | tokens: ")
    assert lines[2:] == ["|---|"] + [f"| row:{i:03d} |" for i in range(25)]
    assert (out.rows, out.truncated) == (25, True)


@pytest.mark.parametrize("stored, asked, shown, more", [(25, None, 25, "no"), (3, 2, 2, "yes"), (3, 3, 3, "no")])
def test_more_rows_exist_is_exact(manager, backend, stored, asked, shown, more):
    _claims(backend, stored)
    out = manager.execute_query(ACME, "SELECT id FROM entity_memory WHERE id LIKE 'ent_row_%'", max_rows=asked)
    assert out.text.startswith(f"rows: {shown} | more exist: {more} | row cap: {asked or 25} |")


def test_max_rows_is_clamped_to_the_hard_maximum(backend):
    _claims(backend, 12)
    manager = MemoryManager(backend, CapsSettings(default_rows=5, max_rows=10))
    out = manager.execute_query(ACME, "SELECT id FROM entity_memory WHERE id LIKE 'ent_row_%'", max_rows=5000)
    assert out.text.startswith("rows: 10 | more exist: yes | row cap: 10 |")


def test_a_vector_renders_with_the_dimension_stored_in_it(manager, backend):
    vector = struct.pack("<384f", *([0.5] * 384))
    with backend.session(ACME) as s:
        s.insert(
            "entity_memory", {"id": "ent_vec", "subject": "s", "predicate": "p", "content": "c", "embedding": vector}
        )
    out = manager.execute_query(
        ACME, "SELECT embedding, embedding AS e, length(embedding) AS n FROM entity_memory WHERE id = 'ent_vec'"
    )
    assert out.text.splitlines()[1:] == [
        "| embedding | e | n |",
        "|---|---|---|",
        "| <VECTOR(384)> | <VECTOR(384)> | 1536 |",
    ]


def test_a_lob_is_a_marker_even_under_an_alias_and_length_still_works(manager, two_tenants):
    out = manager.execute_query(
        ACME, "SELECT content, content AS body, length(content) AS n FROM knowledge_base_document ORDER BY id LIMIT 1"
    )
    assert out.text.splitlines()[3] == "| <LOB> | <LOB> | 304 |"


def test_cells_are_clipped_and_cannot_forge_table_structure(manager, backend):
    with backend.session(ACME) as s:
        s.insert(
            "entity_memory", {"id": "ent_forge", "subject": "s", "predicate": "p", "content": "a | b\n| x | y |\r\nz"}
        )
        s.insert("entity_memory", {"id": "ent_long", "subject": "s", "predicate": "q", "content": "x" * 600})
    out = manager.execute_query(
        ACME, "SELECT content FROM entity_memory WHERE id IN ('ent_forge', 'ent_long') ORDER BY id"
    )
    rows = out.text.splitlines()[3:]
    assert rows == [r"| a \| b\n\| x \| y \|\nz |", "| " + "x" * 499 + "… |"]


def test_a_runaway_query_is_stopped_at_the_deadline(backend):
    manager = MemoryManager(backend, CapsSettings(query_timeout_s=0.2))
    with pytest.raises(QueryTimeout, match=r"^the query was stopped after [\d.]+ s, its time limit\.$") as err:
        manager.execute_query(
            ACME, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
        )
    assert err.value.with_hint() == (
        "the query was stopped after 0.2 s, its time limit. "
        "Narrow the query: filter earlier, aggregate, or read fewer rows."
    )


@pytest.mark.parametrize(
    "sql, message",
    [
        (
            "SELECT nosuch FROM entity_memory",
            "query refused (rule column): it names a column that is missing, or that more than one view in the "
            "query has.",
        ),
        (
            "SELECT id FROM entity_memory, guideline_memory",
            "query refused (rule column): it names a column that is missing, or that more than one view in the "
            "query has.",
        ),
        (
            "SELECT substr() FROM entity_memory",
            "query refused (rule function): it calls a function that does not exist here, or with the wrong "
            "number of arguments.",
        ),
        (
            "SELECT length(replace(printf('%.1000c', 'x'), 'x', printf('%.600c', 'y')) "
            "|| replace(printf('%.1000c', 'x'), 'x', printf('%.600c', 'y')))",
            "query refused (rule too-big): a value it reads or builds is larger than the limit (1 MiB).",
        ),
        (
            "SELECT * FROM entity_memory WHERE content LIKE '%base_x%'",
            "query refused (rule table): it reads a table or view that is not on the allowed list.",
        ),
    ],
)
def test_database_errors_become_rules_without_driver_text(manager, two_tenants, sql, message):
    with pytest.raises(QueryRejected, match=f"^{re.escape(message)}$") as err:
        manager.execute_query(ACME, sql)
    assert err.value.message == message
    assert "sqlite" not in err.value.with_hint().lower()


def test_admission_refuses_views_off_the_reviewed_list(manager, two_tenants):
    with pytest.raises(QueryRejected, match=r"^query refused \(rule table\): ") as err:
        manager.execute_query(ACME, "SELECT * FROM mcp_call_log")
    assert err.value.rule == "table"
    assert err.value.hint == (
        "Allowed views: conversation_memory, entity_memory, entity_memory_history, "
        "guideline_memory, guideline_memory_history, knowledge_base_chunk, "
        "knowledge_base_document, memory_candidate, persona_memory, persona_memory_history, "
        "summarization_memory, workflow_memory, workflow_memory_history."
    )


def test_the_help_lists_the_reviewed_views_and_columns_from_the_catalog(manager):
    help_text = manager.query_views_help(functions_at="memgate://query/functions")
    listed = [
        line.split(":")[0]
        for line in help_text.splitlines()
        if line.split(":")[0].endswith("_memory") or line.startswith("knowledge_base_")
    ]
    assert listed == [
        "conversation_memory",
        "entity_memory",
        "guideline_memory",
        "knowledge_base_chunk",
        "knowledge_base_document",
        "persona_memory",
        "summarization_memory",
        "workflow_memory",
    ]
    # each view names only its own columns; text is the default type, vectors are left out
    assert "\nentity_memory: subject, predicate, content, content_json, confidence real\n" in help_text
    assert "token_count integer, content LOB, metadata_json\n" in help_text
    assert "embedding vector" not in help_text and "embedding_model" in help_text
    # the columns every view shares are listed once, not per view
    assert help_text.count("valid_until") == 1
    assert (
        "Every view also has: id, tenant_id, user_id, agent_id, thread_id, version integer, valid_from, "
        "valid_until, deleted_at, source_table, source_id, source_version integer, created_by, created_at.\n"
    ) in help_text
    assert help_text.startswith("SQLite views of your rows current now; columns text unless typed.\n")
    assert (
        "\n_history views of entity, guideline, persona, workflow: all versions + status "
        "current|superseded|expired|deleted|pending.\n"
    ) in help_text
    # functions by family, the full list one resource away
    assert "\nFunctions by family: memgate://query/functions.\n" in help_text and "julianday" not in help_text
    assert help_text.endswith("\nRows: 25, max_rows up to 500; cells cut at 500 chars; one SELECT.")


def test_without_a_resource_the_help_lists_every_function(manager):
    help_text = manager.query_views_help()
    assert "\nFunctions: ->, ->>, abs, avg, coalesce, count," in help_text and "julianday" in help_text


def test_the_functions_text_lists_every_allowed_function_once_by_family(manager):
    text = manager.query_functions_help()
    lines = text.splitlines()
    assert lines[0].startswith("Functions execute_query may call (SQLite syntax), by family.")
    listed = [name for line in lines[1:] for name in line.split(": ", 1)[1].split(", ")]
    assert sorted(listed) == sorted(manager.backend.query_dialect.allowed_functions)
    assert (
        "- date/time: date, datetime, strftime, julianday, time, current_date, current_time, current_timestamp" in lines
    )


def test_select_star_over_a_document_too_large_to_read_says_which_columns_to_name(backend):
    from kb_helpers import ACME, hashing_manager

    kb = hashing_manager(backend)
    kb.ingest_text(ACME, title="big book", text="kumquat " * 300_000, source_uri="test://acme/big")  # 2.4 MB
    with pytest.raises(QueryRejected, match=r"rule too-big") as refused:
        kb.execute_query(ACME, "SELECT * FROM knowledge_base_document")
    assert refused.value.hint == (
        "A document's full text (knowledge_base_document.content) can be that large: "
        "name the columns you need instead of *, use token_count for its size and "
        "knowledge_base_chunk for its text."
    )
    out = kb.execute_query(ACME, "SELECT title, token_count FROM knowledge_base_document")
    assert out.text.splitlines()[3].startswith("| big book | ")
