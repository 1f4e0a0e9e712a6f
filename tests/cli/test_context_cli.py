"""`memgate context`, `memgate manifest ls|show|replay`, `memgate budget`: through click's runner."""

from __future__ import annotations

import json
import re

import pytest
from backend_helpers import open_sqlite
from cli_helpers import cli_runner
from context_helpers import FACT_CHECK

from memgate.manager import ACME, MemoryManager


@pytest.fixture
def run(sqlite_path, monkeypatch):
    invoke = cli_runner(sqlite_path, monkeypatch)
    invoke("init", "--demo")
    return invoke


def _window(run):
    r = run("context", FACT_CHECK, "-t", "acme", "--intent", "fact_check", "-u", "jane", "--thread", "helios-review")
    manifest_id = re.search(r"manifest (ctx_\w+):", r.stderr).group(1)
    return r.stdout, manifest_id


def test_context_prints_the_window_and_names_its_manifest(run):
    text, manifest_id = _window(run)
    assert text.startswith('<slice name="guidelines">') and "</slice>\ncontext window: fact_check |" in text
    assert "<content>model:helios-rag beir_ndcg10 = 0.78" in text
    assert '<annotation current_fact_id="ent_acme_helios_v2">' in text
    listed = run("manifest", "ls", "-t", "acme").stdout
    assert listed.splitlines()[0].startswith(manifest_id)  # newest first (init --demo recorded one before)
    assert len(listed.splitlines()) == 2


def test_manifest_show_lays_out_the_arithmetic_memories_and_exclusions(run):
    _, manifest_id = _window(run)
    shown = run("manifest", "show", manifest_id, "-t", "acme").stdout
    assert "budget: guideline_memory context_context_budget v1" in shown
    assert "5000 usable - 400 output - 1000 tools - 500 overhead = 3100 available" in shown
    assert re.search(r"durable_facts +full +\d+ +current +entity_memory ent_acme_helios_v2 v2", shown)
    assert re.search(
        r"recalled_history +full +\d+ +historical +summarization_memory sum_acme_july v1 "
        r"+\(used ent_acme_helios_v1; current ent_acme_helios_v2\)",
        shown,
    )
    # fact_check admits no linked history: version 1 is shown as left out, by its lifecycle
    assert re.search(r"durable_facts +lifecycle entity_memory ent_acme_helios_v1 v1: superseded", shown)
    as_json = json.loads(run("manifest", "show", manifest_id, "-t", "acme", "--json").stdout)
    assert as_json["manifest_id"] == manifest_id
    assert "no context manifest" in run("manifest", "show", manifest_id, "-t", "globex", ok=False).output


def test_manifest_replay_matches_then_reports_a_deleted_dependency(run, sqlite_path):
    _, manifest_id = _window(run)
    replayed = run("manifest", "replay", manifest_id, "-t", "acme").stdout
    assert replayed.startswith(f"replayed {manifest_id}: hash matches")
    run("fact", "set", "model:helios-rag", "beir_ndcg10", "0.81", "-t", "acme", "--expect-version", "2")
    assert "hash matches" in run("manifest", "replay", manifest_id, "-t", "acme").stdout  # versions are kept
    manager = MemoryManager(open_sqlite(sqlite_path))  # re-ingesting the report replaces its chunks
    manager.ingest_text(
        ACME,
        title="Helios RAG evaluation report (August re-run)",
        text="Rewritten.",
        source_uri="demo://acme/1",
        collection="demo",
    )
    manager.close()
    failed = run("manifest", "replay", manifest_id, "-t", "acme", ok=False).output
    assert f"cannot replay {manifest_id}" in failed
    assert "knowledge_base_chunk chk_acme_1_0 v1: deleted" in failed


def test_budget_set_validates_and_versions_the_guideline(run):
    assert json.loads(run("budget", "show", "-t", "acme").stdout)["usable_context"] == 5000
    out = run("budget", "set", "-t", "acme", "usable_context=6000", "shares.fact_check.evidence=0.2").stdout
    assert out.startswith("context budget of acme is now version 2 (context_context_budget,")
    assert json.loads(run("budget", "show", "-t", "acme").stdout)["usable_context"] == 6000
    bad = run("budget", "set", "-t", "acme", "shares.fact_check.evidence=0.9", ok=False).output
    assert "context_budget.shares.fact_check: shares must sum to at most 1" in bad
    small = run("budget", "set", "-t", "acme", "usable_context=1950").stdout
    assert "version 3" in small
    too_small = run("context", FACT_CHECK, "-t", "acme", "-i", "fact_check", ok=False).output
    assert "the guidelines slice needs" in too_small and "memgate budget set -t acme usable_context=8000" in too_small
    assert "by at least" in too_small


def test_replay_as_of_the_marker_on_sqlite_says_in_one_line_why_it_cannot(run):
    _, manifest_id = _window(run)
    failed = run("manifest", "replay", manifest_id, "-t", "acme", "--as-of-marker", ok=False).output
    assert "SQLite keeps no change number" in failed and "Replay without --as-of-marker" in failed
    assert "Traceback" not in failed
