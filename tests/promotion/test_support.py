"""support.py read on its own: strict where meaning can flip, lenient where it cannot (examples of their own,
not the replay set's)."""

from __future__ import annotations

import pytest

from memgate.manager.promotion.assess import AssessmentRequest, RulesAssessor
from memgate.manager.promotion.support import Source, check

WAREHOUSE = Source(
    "The Leeds warehouse ships 400 parcels a day and employs 35 pickers. Returns are not accepted at the "
    "Leeds counter; they go to the York depot.",
    "Logistics handbook",
)


@pytest.mark.parametrize(
    "claim, rule",
    [
        ("The Leeds warehouse ships 35 parcels a day.", "anchor"),  # another attribute's number
        ("The York depot ships 400 parcels a day.", "anchor"),  # another thing's number
        ("Returns are accepted at the Leeds counter.", "negation"),
        ("The Leeds warehouse ships 400 parcels a day and runs a night shift for the holidays.", "added"),
    ],
)
def test_what_flips_a_claim_is_found(claim, rule):
    assert [f.rule for f in check(claim, [WAREHOUSE]).findings][:1] == [rule]


@pytest.mark.parametrize(
    "claim",
    [
        "Every day the Leeds warehouse ships 400 parcels, with 35 pickers.",  # order and inflection
        "Returns go to the York depot, not to the Leeds counter.",
        "The Leeds warehouse employs 35 pickers.",
    ],
)
def test_a_restatement_that_keeps_every_anchor_and_polarity_is_read_as_supported(claim):
    reading = check(claim, [WAREHOUSE])
    assert [f for f in reading.findings if f.question != "scope_fits"] == [], reading.findings


def test_a_hedge_a_single_case_and_a_time_limit_are_kept_or_found():
    hedged = Source("I think the audit probably starts on 2 June.", user_turn=True)
    assert check("The audit starts on 2 June.", [hedged]).failed("supported").rule == "hedge"
    assert check("She thinks the audit probably starts on 2 June.", [hedged]).findings == []
    once = Source("Last Tuesday we waived the late fee for Umbrella Corp, as an exception.")
    assert check("Umbrella Corp does not pay late fees.", [once]).failed("scope_fits").rule == "single_instance"
    limited = Source("Until the end of March, orders ship from the York depot.")
    assert check("Orders ship from the York depot.", [limited]).failed("scope_fits").rule == "time_limit"
    assert not check("Until the end of March orders ship from the York depot.", [limited]).findings


def test_an_opening_phrase_belongs_to_the_clause_it_opens():
    source = Source("After 30 days, a refund needs the approval of the support lead.")
    assert check("The support lead approves refunds after 30 days.", [source]).findings == []


def test_a_universal_word_the_evidence_states_is_no_widening():
    asked = Source("Please link the source whenever you cite a number.", user_turn=True)
    assert check("Cite the source with every number.", [asked]).failed("scope_fits") is None
    plain = Source("Please link the source when you cite this number.", user_turn=True)
    assert check("Cite the source with every number.", [plain]).failed("scope_fits").rule == "general"


def test_a_facts_support_is_its_value_where_the_predicate_is_named():
    source = Source(
        "The request timeout is 30 seconds, and the connection pool holds 50 connections.", "Runbook: search API"
    )
    request = AssessmentRequest(
        "fact", "50", "user", (source.text,), "service:search-api", "connection_pool_size", titles=(source.title,)
    )
    assert RulesAssessor().assess(request).probabilities["supported"] >= 0.9
    swapped = AssessmentRequest(
        "fact", "30", "user", (source.text,), "service:search-api", "connection_pool_size", titles=(source.title,)
    )
    assert RulesAssessor().assess(swapped).probabilities["supported"] < 0.9


def test_a_figure_the_evidence_withdraws_supports_nothing():
    withdrawn = Source("The pump's reading of 94 degrees was withdrawn.")
    finding = check("The pump's reading was 94 degrees.", [withdrawn]).failed("supported")
    assert (finding.rule, finding.reason) == ("anchor", "the evidence withdraws '94'")
    stated = Source("The pump's reading of 94 degrees was confirmed.")
    assert check("The pump's reading was 94 degrees.", [stated]).failed("supported") is None


def test_a_fact_names_the_evidence_subject_and_the_attribute_its_value_stands_for():
    source = Source(
        "The request timeout is 30 seconds, and the connection pool holds 50 connections.", "Runbook: search API"
    )
    pool = {"kind": "fact", "predicate": "connection_pool_size"}
    assert check("50", [source], subject="service:search-api", **pool).findings == []
    assert check("50", [source], subject="service:billing-db", **pool).failed("supported").rule == "subject"
    assert check("30", [source], subject="service:search-api", **pool).failed("supported").rule == "attribute"
