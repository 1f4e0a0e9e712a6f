"""Each benchmark command runs end to end at a tiny size, prints its table and writes its JSON."""

from __future__ import annotations

import importlib.util
import json

import pytest

from bench import (
    gate,
    governance,
    ingest,
    keyed_reads,
    latency,
    lexical_index,
    load,
    menu,
    quality,
    rss,
    search,
    startup,
)
from bench.common import machine, percentile, summary_ms
from bench.datasets import Collection
from memgate.manager.kb.embed import HashingEmbedder

TINY = Collection(
    name="tiny",
    docs={
        "d1": "Zebras graze on the savanna grass.",
        "d2": "The pump overheated and shut down.",
        "d3": "Zebras and giraffes share the savanna.",
        "d4": "Invoices are due monthly.",
    },
    queries={"q1": "zebras savanna", "q2": "pump overheated"},
    qrels={"q1": {"d1": 2, "d3": 1}, "q2": {"d2": 1}},
    source_doc={"q1": "none", "q2": "none"},
)


def _ran(capsys, tmp_path, name: str) -> tuple[dict, str]:
    out = capsys.readouterr().out
    data = json.loads((tmp_path / f"{name}.json").read_text())
    assert "Machine: " in out and "load average" in out and data["machine"]["nproc"] >= 1
    assert data["machine"]["cpu"] and len(data["machine"]["load_average"]) == 3
    return data, out


def test_percentile_is_nearest_rank():
    assert [percentile(range(1, 21), p) for p in (5, 50, 95, 100)] == [1, 10, 19, 20]
    assert summary_ms([3.0, 1.0, 2.0]) == {"p50_ms": 2.0, "p95_ms": 3.0, "n": 3}


def test_machine_names_the_cpu_and_the_load():
    info = machine()
    assert info["nproc"] >= 1 and info["cpu"] and len(info["load_average"]) == 3


def test_quality_scores_each_method_with_ndcg_and_recall(tmp_path):
    report = quality.quality(HashingEmbedder(256), tmp_path, TINY)
    assert set(report["methods"]) == {"lexical", "vector", "hybrid"}
    assert report["methods"]["lexical"] == {"ndcg@10": 1.0, "recall@10": 1.0}
    assert (report["docs"], report["queries"], report["judgments"]) == (4, 2, 3)
    # The BM25 peer is scored on the same queries, and on each part of the held-out split.
    assert set(report["parts"]) == {"all", "tune", "test"}
    assert report["parts"]["all"]["bm25"]["recall@10"] == 1.0
    assert report["parts"]["all"]["lexical"] == report["methods"]["lexical"]


def test_the_bm25_peer_ranks_whole_documents_and_leaves_out_the_source():
    runs = quality.bm25_runs(TINY)
    assert runs["q1"][:2] in (["d1", "d3"], ["d3", "d1"]) and runs["q2"] == ["d2"]


def test_the_pydoc_collection_asks_one_question_per_section():
    from bench.datasets_more import pydoc, question_for, split

    assert question_for("The assert statement") == "How does the assert statement work?"
    assert question_for("Slicings") == "What are slicings?"
    assert question_for("Customizing attribute access") == "How do I go about customizing attribute access?"
    coll = pydoc()
    assert len(coll.docs) > 100 and len(coll.queries) > 100
    assert all(len(judged) == 1 and set(judged) <= set(coll.docs) for judged in coll.qrels.values())
    tune, test = split(coll, "tune"), split(coll, "test")
    assert not set(tune.queries) & set(test.queries) and len(tune.queries) + len(test.queries) == len(coll.queries)


def test_the_news_collection_asks_for_identifiers_named_by_changelog_entries():
    from bench.datasets_more import news, news_path

    try:
        news_path()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    coll = news()
    assert len(coll.docs) > 500 and 50 <= len(coll.queries) <= 150
    for qid, ident in coll.queries.items():
        assert len(coll.qrels[qid]) >= 2
        assert all(ident in coll.docs[doc] for doc in coll.qrels[qid])
    # Judged by naming, not by markup: an entry naming the identifier outside a reST role counts too.
    judged = {ident: set(coll.qrels[qid]) for qid, ident in coll.queries.items()}
    plain = [d for d, text in coll.docs.items() if text.endswith("Fix memory leak in PyEval_EvalCodeEx.")]
    if "PyEval_EvalCodeEx" in judged and plain:
        assert set(plain) <= judged["PyEval_EvalCodeEx"]


def test_a_changelog_entry_is_relevant_when_it_names_the_identifier_whole():
    from bench.datasets_more import naming

    docs = {
        "role": "Fix :func:`functools.lru_cache` with typed keys.",
        "tilde": "Document :func:`~functools.lru_cache`'s cache_info().",
        "backticks": "``functools.lru_cache`` now keeps the wrapped function's signature.",
        "plain": "Fix a crash in functools.lru_cache.",
        "longer": "Add functools.lru_cache_info to the docs.",
        "dotted_longer": "Speed up functools.lru_cache.cache_clear().",
        "prefixed": "Fix xfunctools.lru_cache in the test helper.",
        "case": "Deprecate FUNCTOOLS.LRU_CACHE in the docs.",
    }
    assert naming(docs, "functools.lru_cache") == ["role", "tilde", "backticks", "plain"]
    # A qualified name is another identifier, as it was for the roles (`bool.__repr__` is not `__repr__`).
    assert naming(docs, "lru_cache") == []
    assert naming({"bare": "Call lru_cache() once.", **docs}, "lru_cache") == ["bare"]


@pytest.mark.skipif(
    importlib.util.find_spec("gensim") is None,
    reason="gensim (ships the Lee corpus) not installed: pip install -e '.[test]' installs it",
)
def test_the_lee_collection_loads_from_the_installed_gensim_wheel():
    from bench.datasets import lee

    coll = lee()
    assert len(coll.docs) == 350 and len(coll.queries) == 48
    assert all(coll.source_doc[q] not in judged for q, judged in coll.qrels.items())
    assert set(g for judged in coll.qrels.values() for g in judged.values()) == {1, 2}


def test_menu_counts_the_menu_and_compares_results_with_json(tmp_path, capsys):
    assert menu.main(["--results", str(tmp_path)]) == 0
    data, out = _ran(capsys, tmp_path, "menu")
    assert {"lookup_entity", "search_memory", "execute_query", "memory"} <= set(data["menu_tokens"])
    assert data["menu_total"] == sum(data["menu_tokens"].values())
    assert all(r["rows"] >= 1 and r["result_tokens"] > 0 and r["json_tokens"] > 0 for r in data["results"].values())
    assert "| lookup_entity |" in out


def test_governance_times_full_and_bare_paths_and_the_protocol_floor(tmp_path, capsys):
    assert governance.main(["--calls", "4", "--results", str(tmp_path)]) == 0
    data, out = _ran(capsys, tmp_path, "governance")
    assert set(data["tools"]) == {"lookup_entity", "search_memory", "execute_query"}
    for row in data["tools"].values():
        for clock in ("wall", "cpu"):
            assert row["full"][clock]["n"] == row["bare"][clock]["n"] == 4 and isinstance(row[clock]["met"], bool)
    assert data["protocol_floor"]["wall"]["n"] == 4 and "protocol floor" in out


def test_keyed_reads_times_each_statement_at_both_sizes_with_and_without_its_index(tmp_path, capsys):
    assert keyed_reads.main(["--calls", "10", "--rows", "100", "300", "--results", str(tmp_path)]) == 0
    data, out = _ran(capsys, tmp_path, "keyed_reads")
    assert set(data["statements"]) == set(keyed_reads.STATEMENTS)
    for kinds in data["statements"].values():
        assert set(kinds) == {"keyed", "walked"}
        for t in kinds.values():
            assert set(t["us_per_call"]) == {"100", "300"} and t["ratio"] > 0
    assert "index dropped" in out


def test_search_times_each_method_against_both_floors(tmp_path, capsys):
    assert search.main(["--sizes", "120", "--queries", "3", "--results", str(tmp_path)]) == 0
    data, out = _ran(capsys, tmp_path, "search")
    [row] = data["sizes"]
    assert row["chunks_per_tenant"] == 120 and row["tenants"] == 2
    for name in ("lexical", "vector", "hybrid", "numpy_floor", "fts5_floor"):
        assert row[name]["n"] == 3 and 0 < row[name]["p50_ms"] <= row[name]["p95_ms"]
    assert row["vector_over_numpy"] > 0 and row["lexical_over_fts5"] > 0
    assert "| 120 |" in out and data["targets"]["at_chunks"] == 120


def test_lexical_index_times_both_legs_on_fragmented_and_merged_indexes_and_the_writes(tmp_path, capsys):
    args = ["--turns", "40", "--chunks", "30", "--queries", "3", "--results", str(tmp_path), "--try", "crisismerge=8"]
    assert lexical_index.main(args) == 0
    data, out = _ran(capsys, tmp_path, "lexical_index")
    assert data["tried"] == {"crisismerge": 8} and (data["turns"], data["chunks"]) == (40, 30)
    for leg in ("kb", "recall"):
        rows = data["legs"][leg]
        assert set(rows) == {"fts5_defaults", "template", "floor", "merged"}
        assert rows["floor"]["segments"] == rows["merged"]["segments"] == 1 < rows["fts5_defaults"]["segments"]
        assert all(row["n"] == 3 and row["over_floor"] > 0 for row in rows.values())
    assert len(data["write_mean_ms"]["turn"]) == 2 and data["write_ratio"]["chunk"] > 0
    assert "| kb_lexical | floor | 1 |" in out and "Segments over the second half" in out


def test_search_floor_runs_the_lexical_legs_own_match_on_the_same_tokenizer():
    # The floor does the leg's FTS5 work and nothing else: its expression (stop words out, identifier
    # prefixes, word pairs), on an index that keeps `lru_cache` one stemmed term.
    assert search.fts_floor_query("the pump valve") == '"pump" OR "valve" OR "the pump" OR "pump valve"'
    assert '"lru_cache" *' in search.fts_floor_query("lru_cache")
    assert search.index_tokenizer() == "porter unicode61 remove_diacritics 2 tokenchars _"


def test_search_floor_table_stems_and_keeps_identifiers_whole(tmp_path):
    conn = search.fts_floor_table(tmp_path / "floor.db", ["the pumps were running", "lru_cache_info helper"])
    try:
        match = "SELECT rowid FROM floor WHERE floor MATCH ? ORDER BY rank"
        assert conn.execute(match, (search.fts_floor_query("pump run"),)).fetchall() == [(1,)]
        assert conn.execute(match, ('"cache"',)).fetchall() == []  # lru_cache_info is one term
        assert conn.execute(match, (search.fts_floor_query("lru_cache"),)).fetchall() == [(2,)]
    finally:
        conn.close()


def test_ingest_counts_chunks_per_second_through_ingest_file(tmp_path, capsys):
    assert ingest.main(["--files", "2", "--paragraphs", "6", "--results", str(tmp_path)]) == 0
    data, _ = _ran(capsys, tmp_path, "ingest")
    assert data["files"] == 2 and data["failed"] == 0 and data["chunks"] >= 2 and data["chunks_per_s"] > 0


def test_latency_in_process_and_over_http_with_concurrent_clients(tmp_path, capsys):
    args = ["--calls", "2", "--http-calls", "4", "--levels", "1", "2", "--results", str(tmp_path)]
    assert latency.main(args) == 0
    data, _ = _ran(capsys, tmp_path, "latency")
    assert set(data["in_process"]) == set(latency.TOOLS)
    assert [lv["clients"] for lv in data["http"]] == [1, 2]
    assert all(lv["errors"] == 0 and lv["calls"] == 4 for lv in data["http"]), data["http"]


def test_load_keeps_calls_in_flight_per_level_and_reads_the_servers_cpu(tmp_path, capsys):
    args = ["--seconds", "0.3", "--rounds", "2", "--levels", "1,2", "--generators", "1", "--workers", "1"]
    assert load.main([*args, "--results", str(tmp_path)]) == 0
    data, out = _ran(capsys, tmp_path, "load")
    [run] = data["runs"]
    assert [lv["in_flight"] for lv in run["levels"]] == [1, 2]
    assert all(lv["errors"] == 0 and lv["calls"] > 0 and lv["server_cpu_ms_per_call"] > 0 for lv in run["levels"])
    assert all(lv["turns"] == 2 and len(lv["calls_per_s_turns"]) == 2 for lv in run["levels"])  # levels take turns
    assert "of the best level" in out and "CPU/call against 1 in flight" in out
    assert run["session_setup"]["n"] == 20 and "session set-up" in out


def test_rss_reads_the_server_peak_from_proc(tmp_path, capsys):
    assert rss.main(["--chunks", "100", "--searches", "2", "--results", str(tmp_path)]) == 0
    data, _ = _ran(capsys, tmp_path, "rss")
    assert len(data["samples"]) == 2 and data["peak_mb"] >= data["after_start"]["VmRSS"] > 10
    assert data["mappings_mb"]["shared libraries"] > 0 and data["mappings_mb"]["database file (mmap)"] == 0
    steps = [s["part"] for s in data["parts"]["steps"]]
    assert steps[0] == "Python interpreter" and steps[-1] == "1 more searches"
    assert data["parts"]["held"]["vector_matrix_mb"] >= 0 and data["parts"]["held"]["sqlite_idle_connections"] >= 1


def test_the_readme_shows_each_benchmarks_committed_results():
    from bench import readme
    from bench.__main__ import SUITE

    text = readme.PAGE.read_text()
    assert [name for _, name, _, _ in readme._BLOCK.findall(text)] == list(SUITE)
    assert readme.rewrite(text) == text, "docs/benchmarks.md differs from bench/results/: run python3 -m bench.readme"


def test_the_gate_replays_its_labelled_set_and_times_each_decision_against_a_plain_insert(tmp_path, capsys):
    assert gate.main(["--rounds", "1", "--results", str(tmp_path)]) == 0
    data, out = _ran(capsys, tmp_path, "gate")
    parts = data["parts"]
    assert sum(parts[p]["rules"]["proposals"] for p in ("tuning", "held_out")) >= 150
    for part in parts.values():
        for scored in part.values():  # rules and the credulous stand-in: the code checks hold for both
            assert scored["secret_injection_personal_promoted"] == 0, scored["dangerous_promotions"]
    assert data["targets_met"]["tuning/rules"] and data["targets_met"]["whole set/rules"], data["targets_met"]
    assert "_outcomes" not in data["parts"]["tuning"]["rules"]
    assert {"promoted", "pending", "duplicate", "refused", "plain insert"} <= set(data["timings"])
    assert "Promotion gate" in out and "**tuning, rules**" in out and "**held_out, credulous**" in out


def test_a_refusal_by_the_rate_cap_is_not_counted_as_a_decision():
    outcomes = [
        {"cls": "good_note", "content": "a", "decision": "promoted", "rule": "passed"},
        {"cls": "secret", "content": "b", "decision": "refused", "rule": "rate"},
    ]
    scored = gate.score(outcomes)
    assert scored["proposals"] == 1 and scored["rate_limited_not_decided"] == 1
    assert scored["secret_injection_personal"] == 0 and "secret" not in scored["matrix"]


def test_the_conversations_bench_runs_on_a_small_locomo_shaped_file(tmp_path, capsys, manager):
    """LoCoMo's shape with the test's own words (the benchmark's data is never in tests)."""
    from locomo_helpers import write_zip

    from bench import conversations

    sample = {
        "speaker_a": "Mira",
        "speaker_b": "Tom",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Mira", "dia_id": "D1:1", "text": "I adopted a grey cat called Pixel."},
            {"speaker": "Tom", "dia_id": "D1:2", "text": "Lovely! I bought a red bicycle."},
        ],
        "session_2_date_time": "10:00 am on 9 May, 2023",
        "session_2": [{"speaker": "Mira", "dia_id": "D2:1", "text": "Pixel learned to open doors."}],
        "qa": [
            {"question": "What is the name of Mira's cat?", "evidence": ["D1:1"], "category": 4},
            {"question": "When did Mira adopt the cat?", "evidence": ["D1:1"], "category": 2},
            {"question": "Which bicycle did Tom buy?", "evidence": ["D1:2"], "category": 1},
            {"question": "Unanswerable?", "evidence": [], "category": 5},
        ],
    }
    path = write_zip(tmp_path / "tiny.zip", {"data/multimodal_dialog/locomo10_v2/1.json": sample})
    assert conversations.main([str(path), "--no-perf", "--tuned-on", "", "--results", str(tmp_path)]) == 0
    data, out = _ran(capsys, tmp_path, "conversations")
    loc = data["locomo"]
    assert (loc["turns"], loc["questions"], loc["conversations"]) == (3, 3, ["1"])
    assert loc["all"]["window_evidence"] == 1.0 and loc["all"]["recall@5"] == 1.0
    assert "single-hop" in out and "BM25@10" in out
    recovery = conversations.constraint_recovery(manager, conversations=2, cycles=2)
    assert recovery["recovery"] == 1.0 and recovery["constraint_whole_in_windows"] == "2 of 2"
    timed = conversations.timing(manager, big=450, samples=5, questions=2)
    assert timed["turns_in_thread"] == 450 and timed["append_ratio"] > 0


def test_startup_times_each_command_as_a_whole_process_against_the_floor(tmp_path, capsys):
    assert startup.main(["--rounds", "1", "--results", str(tmp_path)]) == 0
    data, out = _ran(capsys, tmp_path, "startup")
    rows = {c["command"]: c for c in data["commands"]}
    assert list(rows) == list(startup.COMMANDS) and rows["python3 -c pass (floor)"]["ratio_to_floor"] == 1.0
    assert all(c["median_ms"] > 0 for c in rows.values()) and "memgate --help" in out
