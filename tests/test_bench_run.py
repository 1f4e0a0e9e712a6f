"""The retrieval benchmark's pipeline, on a tiny collection; the Lee loader when gensim is installed."""

from __future__ import annotations

import importlib.util

import pytest

from bench import run
from bench.datasets import Collection
from memgate.manager.kb.embed import HashingEmbedder

TINY = Collection(
    name="tiny",
    docs={"d1": "Zebras graze on the savanna grass.", "d2": "The pump overheated and shut down.",
          "d3": "Zebras and giraffes share the savanna.", "d4": "Invoices are due monthly."},
    queries={"q1": "zebras savanna", "q2": "pump overheated"},
    qrels={"q1": {"d1": 2, "d3": 1}, "q2": {"d2": 1}},
    source_doc={"q1": "none", "q2": "none"},
)


def test_quality_scores_each_method_with_ndcg_and_recall(tmp_path):
    report = run.quality(HashingEmbedder(256), tmp_path, TINY)
    assert set(report["methods"]) == {"lexical", "vector", "hybrid"}
    assert report["methods"]["lexical"] == {"ndcg@10": 1.0, "recall@10": 1.0}
    assert (report["docs"], report["queries"], report["judgments"]) == (4, 2, 3)


def test_latency_reports_p50_and_p95_per_method_and_size(tmp_path):
    words = "zebra giraffe pump invoice savanna river dawn herd grass monthly".split() * 3
    rows = run.latency(HashingEmbedder(64), tmp_path, [120], queries=5, words=sorted(set(words)))
    (row,) = rows
    assert row["chunks_per_tenant"] == 120 and row["tenants"] == 2
    for method in ("lexical", "vector", "hybrid"):
        assert 0 < row[method]["p50_ms"] <= row[method]["p95_ms"]
    assert "| 120 |" in run.markdown({"embedder": "hashing-64", "latency": rows})


@pytest.mark.skipif(importlib.util.find_spec("gensim") is None,
                    reason="gensim (ships the Lee corpus) not installed: pip install -e '.[test]' installs it")
def test_the_lee_collection_loads_from_the_installed_gensim_wheel():
    from bench.datasets import lee
    coll = lee()
    assert len(coll.docs) == 350 and len(coll.queries) == 48
    assert all(coll.source_doc[q] not in judged for q, judged in coll.qrels.items())
    assert set(g for judged in coll.qrels.values() for g in judged.values()) == {1, 2}
