import pytest

from memgate.manager.errors import InvalidArgument
from memgate.manager.kb.fusion import Fused, convex_fusion, reciprocal_rank_fusion


def test_fusion_sums_reciprocal_ranks_across_methods():
    fused = reciprocal_rank_fusion({"lexical": ["a", "b", "c"], "vector": ["c", "a", "d"]}, k=60)
    assert fused == [
        Fused("a", 1 / 61 + 1 / 62, {"lexical": 1, "vector": 2}),
        Fused("c", 1 / 61 + 1 / 63, {"lexical": 3, "vector": 1}),
        Fused("b", 1 / 62, {"lexical": 2}),
        Fused("d", 1 / 63, {"vector": 3}),
    ]


def test_fused_results_unpack_as_id_score_and_ranks():
    [(doc_id, score, ranks)] = reciprocal_rank_fusion({"lexical": [7]}, k=0)
    assert (doc_id, score, ranks) == (7, 1.0, {"lexical": 1})


def test_equal_scores_are_ordered_by_method_name_not_dict_order():
    first = reciprocal_rank_fusion({"vector": ["y"], "lexical": ["x"]})
    second = reciprocal_rank_fusion({"lexical": ["x"], "vector": ["y"]})
    assert [f.id for f in first] == [f.id for f in second] == ["x", "y"]


def test_equal_rank_sets_tie_exactly_and_keep_met_first_order():
    fused = reciprocal_rank_fusion({"c": ["r", "p", "q"], "b": ["q", "r", "p"], "a": ["p", "q", "r"]})
    # Each id has the ranks {1, 2, 3}; method "a" is read first, so its order wins.
    assert [f.id for f in fused] == ["p", "q", "r"]
    assert fused[0].score == fused[1].score == fused[2].score


def test_an_id_listed_twice_by_one_method_keeps_its_better_rank():
    assert reciprocal_rank_fusion({"lexical": ["a", "b", "a"]}, k=60)[0] == Fused("a", 1 / 61, {"lexical": 1})


def test_ids_of_mixed_types_fuse_without_being_compared():
    fused = reciprocal_rank_fusion({"lexical": [1, "1"], "vector": ["1", 1]})
    assert [f.id for f in fused] == [1, "1"]


def test_no_rankings_fuse_to_nothing():
    assert reciprocal_rank_fusion({}) == []
    assert reciprocal_rank_fusion({"lexical": []}) == []


def test_negative_k_is_rejected():
    with pytest.raises(InvalidArgument, match="^k must be >= 0, got -1\\.$") as excinfo:
        reciprocal_rank_fusion({"lexical": ["a"]}, k=-1)
    assert (excinfo.value.message, excinfo.value.field) == ("k must be >= 0, got -1.", "k")


def test_convex_fusion_weights_each_legs_score_divided_by_its_best():
    fused = convex_fusion(
        {"lexical": [("a", 8.0), ("b", 2.0)], "vector": [("b", 0.5), ("c", 0.25)]}, {"lexical": 0.6, "vector": 0.4}
    )
    assert [(f.id, round(f.score, 6)) for f in fused] == [("a", 0.6), ("b", 0.55), ("c", 0.2)]
    assert fused[1].ranks == {"lexical": 2, "vector": 1}


def test_convex_fusion_with_one_leg_keeps_its_order_and_refuses_a_negative_weight():
    assert [f.id for f in convex_fusion({"lexical": [(3, 2.0), (1, 1.0)]}, {"lexical": 1.0})] == [3, 1]
    assert convex_fusion({}, {}) == [] and convex_fusion({"vector": []}, {"vector": 1.0}) == []
    with pytest.raises(InvalidArgument, match="weights must be >= 0"):
        convex_fusion({"lexical": [("a", 1.0)]}, {"lexical": -1.0})
