import math

import pytest

from bench.metrics import mean_over_queries, ndcg_at_k, recall_at_k


def test_ndcg_uses_graded_gain_and_log2_discount():
    # DCG = 1/log2(2) + 2/log2(4) = 2; ideal order [2, 1, 1] gives 2 + 1/log2(3) + 1/2.
    score = ndcg_at_k(["d1", "d2", "d3"], {"d1": 1, "d3": 2, "d4": 1}, k=3)
    assert score == pytest.approx(2 / (2 + 1 / math.log2(3) + 0.5))


def test_ndcg_of_the_ideal_ranking_is_one():
    assert ndcg_at_k(["a", "b", "c"], {"a": 3, "b": 2, "c": 1}, k=3) == pytest.approx(1.0)


def test_ndcg_ignores_documents_below_k():
    assert ndcg_at_k(["x", "a"], {"a": 1}, k=1) == 0.0


def test_ndcg_counts_a_repeated_document_once():
    # The run is read as [d1, d2]: d2 sits at rank 2, so DCG = 1/log2(3) and IDCG = 1.
    assert ndcg_at_k(["d1", "d1", "d2"], {"d2": 1}, k=2) == pytest.approx(1 / math.log2(3))


def test_ndcg_is_zero_when_nothing_is_relevant():
    assert ndcg_at_k(["a"], {"a": 0}, k=10) == 0.0


def test_recall_is_the_share_of_relevant_documents_in_the_first_k():
    assert recall_at_k(["a", "b", "c", "d"], {"a": 1, "d": 1, "e": 0, "f": 2}, k=3) == pytest.approx(1 / 3)


def test_recall_is_zero_when_nothing_is_relevant():
    assert recall_at_k(["a"], {}, k=5) == 0.0


def test_k_below_one_is_rejected():
    with pytest.raises(ValueError, match="^k must be >= 1, got 0$"):
        recall_at_k(["a"], {"a": 1}, k=0)


def test_mean_skips_unjudged_queries_and_scores_missing_runs_zero():
    run = {"q1": ["a", "b"], "q3": ["z"]}
    qrels = {"q1": {"b": 1}, "q2": {"c": 1}, "q3": {"z": 0}}
    # q1 recall 1.0, q2 has no run so 0.0, q3 has nothing relevant so it is skipped.
    assert mean_over_queries(run, qrels, recall_at_k, k=2) == pytest.approx(0.5)
