"""The `tokens:` figure on a result's first line is the o200k_base count of the whole text, that line included."""

from __future__ import annotations

import re

import pytest
from kb_helpers import hashing_manager

from memgate.manager import ACME, count_tokens
from memgate.manager.output.records import metadata_line, with_token_count


def _stated(text: str) -> int:
    return int(re.search(r"\| tokens: (\d+)", text.split("\n", 1)[0]).group(1))


@pytest.fixture
def kb(backend, two_tenants):
    return hashing_manager(backend)


@pytest.mark.parametrize(
    ("kind", "call"),
    [
        ("lookup_entity", lambda m: m.lookup_entity(ACME, "model:helios-rag", "beir_ndcg10")),
        ("search_memory", lambda m: m.search_memory(ACME, "helios BEIR re-run")),
        ("search_memory, nothing found", lambda m: m.search_memory(ACME, "xylophone quasar")),
        ("execute_query", lambda m: m.execute_query(ACME, "SELECT id, content FROM entity_memory ORDER BY id")),
        ("execute_query, no rows", lambda m: m.execute_query(ACME, "SELECT id FROM entity_memory WHERE 0")),
    ],
)
def test_each_result_kind_states_the_tokens_of_its_whole_text(kb, kind, call):
    out = call(kb)
    assert _stated(out.text) == count_tokens(out.text) == out.tokens


@pytest.mark.parametrize("body_words", [0, 1, 330, 331, 332, 333, 3330])
def test_the_count_settles_across_a_change_in_the_number_of_digits(body_words):
    body = " ".join(["word"] * body_words) if body_words else None  # None: the metadata line alone
    text = with_token_count(lambda tokens: metadata_line(rows=1, tokens=tokens), body)
    assert _stated(text) == count_tokens(text)
