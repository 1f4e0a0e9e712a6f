"""text.py, the gate's reader, on its own: word forms, identifiers as words, anchors and clauses."""

from __future__ import annotations

import pytest

from memgate.manager.promotion.support import Source, check
from memgate.manager.promotion.text import lemmas, sentences, split_identifier


@pytest.mark.parametrize(
    "word, base",
    [("signed", "sign"), ("summaries", "summary"), ("leads", "lead"), ("led", "lead"), ("stopped", "stop")],
)
def test_a_word_carries_its_base_form(word, base):
    assert base in lemmas(word)


@pytest.mark.parametrize(
    "identifier, words",
    [
        ("beir_ndcg10", ["beir", "ndcg", "10"]),
        ("connectionPoolSize", ["connection", "pool", "size"]),
        ("model:helios-rag", ["model", "helios", "rag"]),
    ],
)
def test_an_identifier_reads_as_its_words(identifier, words):
    assert split_identifier(identifier) == words


def test_anchors_are_numbers_with_their_direction_and_names_where_a_sentence_starts():
    assert sentences("Latency fell from 30 ms to 20 ms.")[0].anchors() == {"from 30", "to 20"}
    assert "beir" in sentences("BEIR scores rose in May.")[0].anchors()  # an acronym first in its sentence


def test_but_starts_a_clause_of_its_own():
    [sentence] = sentences("The pool holds 50 connections but the timeout is 30 seconds.")
    assert [c.text() for c in sentence.clauses] == ["The pool holds 50 connections", "but the timeout is 30 seconds"]


def test_a_number_said_in_another_direction_is_not_supported():
    source = Source("Latency fell from 30 ms to 20 ms after the cache landed.")
    assert check("Latency fell to 20 ms after the cache landed.", [source]).failed("supported") is None
    assert check("Latency fell to 30 ms after the cache landed.", [source]).failed("supported").rule == "anchor"


def test_evidence_without_text_supports_nothing():
    assert check("The pump overheated.", [Source("")]).failed("supported").rule == "empty"
