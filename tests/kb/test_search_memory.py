"""search_memory: hybrid results bounded by rows and tokens, cited, with score parts; over MCP too."""

from __future__ import annotations

import asyncio
import json

import pytest
from fastmcp import Client
from kb_helpers import ACME, GLOBEX, add_doc, hashing_manager

from memgate.manager.backend.query_terms import MAX_QUERY_TERMS, query_terms
from memgate.manager.backend.sqlite.kb import fts_expression
from memgate.manager.errors import InvalidArgument
from memgate.manager.kb.search import KEYWORD_LEXICAL_WEIGHT, LEXICAL_WEIGHT, fusion_weights
from memgate.manager.tokens import count_tokens


@pytest.fixture
def kb(backend):
    return hashing_manager(backend)


def _zebra_docs(kb, n=12, tenant=ACME):
    for i in range(n):
        add_doc(
            kb,
            tenant,
            f"Zebra field note {i}",
            f"Note {i}: the zebra herd crossed the river at dawn. " * 6,
            uri=f"test://notes/{i}",
            collection="field",
        )


def test_a_result_cites_chunks_with_title_position_score_parts_and_tokens(kb):
    add_doc(kb, ACME, "Helios report", "The August re-run found nDCG@10 of 0.78 on BEIR.", collection="evals")
    out = kb.search_memory(ACME, "helios BEIR re-run")
    head, record = out.text.split("\n", 1)
    assert head == (
        f"search: helios BEIR re-run | results: 1 | more exist: no | tokens: {count_tokens(out.text)}"
        " | budget: 2000 tokens"
    )
    (hit,) = out.structured["results"]
    assert record.startswith(
        f'<memory id="{hit["id"]}" type="kb_chunk" status="evidence" document="{hit["document_id"]}"'
        f' collection="evals" position="0" chunks="1" tokens="{hit["tokens"]}" score="{hit["score"]:.4f}" lexical_rank="1"'
        ' vector_rank="1" cosine="'
    )
    assert (
        "\n<content>title: Helios report\nThe August re-run found nDCG@10 of 0.78 on BEIR.</content>\n</memory>"
        in record
    )
    assert out.cited_ids == (hit["id"],) and out.rows == 1 and out.tokens == count_tokens(out.text)


def test_results_stop_at_max_results_and_say_more_exist(kb):
    _zebra_docs(kb)
    out = kb.search_memory(ACME, "zebra river", max_results=3)
    assert out.rows == 3 and len(out.cited_ids) == 3
    assert "| results: 3 | more exist: yes |" in out.text.split("\n", 1)[0]


def test_results_stop_at_the_tenants_token_budget(kb):
    _zebra_docs(kb)
    with kb.backend.session(ACME) as s:
        s.insert(
            "guideline_memory",
            {
                "id": "gdl_t",
                "tenant_id": "acme",
                "guideline_key": "context_budget",
                "content": "small",
                "content_json": json.dumps({"max_tool_result_tokens": 300}),
                "valid_from": "2020-01-01T00:00:00.000Z",
            },
        )
    out = kb.search_memory(ACME, "zebra river", max_results=10)
    assert out.tokens <= 300 and count_tokens(out.text) == out.tokens
    assert 0 < out.rows < 10 and out.truncated
    assert "more exist: yes" in out.text and "budget: 300 tokens" in out.text


def test_a_single_chunk_larger_than_the_budget_is_clipped_not_dropped(kb):
    add_doc(kb, ACME, "Big", "zebra " * 280)
    with kb.backend.session(ACME) as s:
        s.insert(
            "guideline_memory",
            {
                "id": "gdl_t",
                "tenant_id": "acme",
                "guideline_key": "context_budget",
                "content": "tiny",
                "content_json": json.dumps({"max_tool_result_tokens": 150}),
                "valid_from": "2020-01-01T00:00:00.000Z",
            },
        )
    out = kb.search_memory(ACME, "zebra")
    assert out.rows == 1 and out.tokens <= 150 and 'clipped="yes"' in out.text


def test_the_collection_filter_applies_before_ranking(kb):
    _zebra_docs(kb, n=8)
    add_doc(kb, ACME, "Other", "A lone zebra.", collection="misc")
    hits = kb.search_chunks(ACME, "zebra herd river dawn", collection="misc", limit=5)
    assert [h.title for h in hits] == ["Other"]


def test_hybrid_fuses_both_legs_by_reciprocal_rank(kb):
    add_doc(kb, ACME, "exact", "Error code E4711 means the pump overheated.")
    add_doc(kb, ACME, "near", "The pump overheated and shut itself down.")
    lexical = [h.title for h in kb.search_chunks(ACME, "E4711", methods=("lexical",))]
    assert lexical == ["exact"]
    hybrid = kb.search_chunks(ACME, "E4711 pump overheated")
    assert hybrid[0].title == "exact" and hybrid[0].lexical_rank == 1 and hybrid[0].vector_rank is not None
    # Each leg's score is scaled by its best and by the calibrated relevance of that best, and weighted:
    # the lexical leg has LEXICAL_WEIGHT of a question's score and KEYWORD_LEXICAL_WEIGHT of a look-up's.
    assert LEXICAL_WEIGHT * 0.5 < hybrid[0].score <= 1.0


@pytest.mark.parametrize(
    "query, expected",
    [
        ("zebra", '"zebra"'),
        (
            'AND OR NOT "x" NEAR(a b) col:*',
            '"x" OR "near" OR "b" OR "col" OR "not x" OR "x near" OR "near a" OR "a b" OR "b col"',
        ),
        ("AND OR NOT", '"and" OR "or" OR "not"'),
        ("---", None),
        ("Zebra zebra ZEBRA", '"zebra"'),
        ("How does the with statement work?", '"statement" OR "work" OR "with statement" OR "statement work"'),
        (
            "sqlite3.connect __doc__",
            '"sqlite3 connect" OR "sqlite3" OR "connect" OR "__doc__" OR "sqlite3 connect" * OR "__doc__" *'
            ' OR "connect __doc__"',
        ),
        ('a.b"c', '"a b" OR "b" OR "c" OR "a b" * OR "b c"'),
    ],
)
def test_query_words_reach_fts5_as_quoted_terms_never_as_syntax(query, expected):
    # Stop words are left out unless every word is one; a dotted identifier is also a phrase, an
    # identifier also a prefix, and adjacent words (not both stop words) a phrase.
    assert fts_expression(query) == expected


def test_the_term_budget_keeps_a_long_querys_words_before_its_pairs():
    words = [f"w{n}" for n in range(40)]
    terms = query_terms(" ".join(words))
    assert terms.words == tuple(words[:MAX_QUERY_TERMS]) and terms.pairs == ()
    short = query_terms("How does the while statement work?")
    assert short.words == ("statement", "work")
    assert short.pairs == (("while", "statement"), ("statement", "work"))


def test_a_query_of_many_identifiers_keeps_only_the_budget_of_them():
    """Identifiers come first, and still only MAX_QUERY_TERMS of them: nothing else gets past the budget."""
    terms = query_terms(" ".join(f"mod{n}.fn{n}" for n in range(40)))
    assert len(terms.phrases) == MAX_QUERY_TERMS and terms.phrases[0] == ("mod0", "fn0")
    assert (terms.words, terms.prefixes, terms.pairs) == ((), (), ())


def test_a_questions_adjacent_words_outrank_its_words_apart(kb):
    # "while" is a stop word, so without the pair the chunk saying "statement" and "work" most would win.
    add_doc(kb, ACME, "while", "The while statement repeats a suite. Use a while statement as long as it holds.")
    add_doc(kb, ACME, "apart", "Each statement in a script does its work before the next one starts running.")
    for n, text in enumerate(["Pumps need oil.", "Valves open slowly.", "Filters clog in spring."]):
        add_doc(kb, ACME, f"other {n}", text)
    hits = kb.search_chunks(ACME, "How does the while statement work?", methods=("lexical",))
    assert [h.title for h in hits] == ["while", "apart"]


def test_an_identifier_also_finds_the_longer_identifiers_it_prefixes_below_its_exact_namers(kb):
    add_doc(kb, ACME, "info", "Added lru_cache_info to report the hits of the decorated function.")
    add_doc(kb, ACME, "exact", "lru_cache keeps the results of recent calls.")
    add_doc(kb, ACME, "other", "The cache of the parser is cleared.")
    for methods in (("lexical",), ("lexical", "vector")):
        titles = [h.title for h in kb.search_chunks(ACME, "lru_cache", methods=methods)]
        assert titles[:2] == ["exact", "info"]
    # a partial identifier finds the whole one
    assert kb.search_chunks(ACME, "lru_cache_inf", methods=("lexical",))[0].title == "info"


@pytest.mark.parametrize(
    "query, lexical",
    [
        ("asyncio.TaskGroup", KEYWORD_LEXICAL_WEIGHT),
        ("lru_cache", KEYWORD_LEXICAL_WEIGHT),
        ("getExcInfo changed", KEYWORD_LEXICAL_WEIGHT),
        ("How does the with statement work?", LEXICAL_WEIGHT),
        ("zebra", LEXICAL_WEIGHT),
        ("sqlite3.connect is slow when the file is on a network share", LEXICAL_WEIGHT),
    ],
)
def test_an_identifier_look_up_leans_on_the_lexical_leg_and_a_question_less(query, lexical):
    weights = fusion_weights(query)
    assert weights["lexical"] == lexical and weights["vector"] == pytest.approx(1 - lexical)


def test_an_exact_identifier_outranks_a_chunk_that_only_shares_its_parts(kb):
    add_doc(kb, ACME, "names it", "Fixed sqlite3.connect leaking a handle.")
    add_doc(kb, ACME, "parts only", "The connect button in sqlite3 tools; connect again; connect.")
    add_doc(kb, ACME, "docstring", "The __doc__ attribute is now kept.")
    add_doc(kb, ACME, "docs", "The docs were rebuilt; doc strings fixed.")
    assert kb.search_chunks(ACME, "sqlite3.connect", methods=("lexical",))[0].title == "names it"
    assert [h.title for h in kb.search_chunks(ACME, "__doc__", methods=("lexical",))] == ["docstring"]


def test_an_identifier_look_up_puts_exact_names_ahead_of_stemmed_ones(kb):
    # Porter stems Connection to connect, so BM25 alone favours the chunk that says it three times.
    add_doc(kb, ACME, "stemmed", "Add sqlite3.Connection.serialize; sqlite3.Connection limits; sqlite3.Connection.")
    add_doc(kb, ACME, "exact", "Fix a leak in sqlite3.connect when the factory fails, and other release notes.")
    for methods in (("lexical",), ("lexical", "vector")):
        assert kb.search_chunks(ACME, "sqlite3.connect", methods=methods)[0].title == "exact"
    # A question is no look-up: its lexical leg stays in BM25 order.
    question = [
        h.title for h in kb.search_chunks(ACME, "what does sqlite3 connection serialize do", methods=("lexical",))
    ]
    assert question[0] == "stemmed"


def test_a_query_of_only_punctuation_still_runs_the_vector_leg(kb):
    add_doc(kb, ACME, "a", "zebra")
    assert kb.search_chunks(ACME, "?!", methods=("lexical",)) == []


def test_an_empty_query_is_refused(kb):
    with pytest.raises(InvalidArgument, match="query must be a non-empty string"):
        kb.search_memory(ACME, "  ")


def test_search_memory_over_mcp_stays_in_the_tenant_and_is_logged(kb, backend):
    from memory_helpers import seed, server_for

    seed(kb, ACME)
    seed(kb, GLOBEX)
    add_doc(kb, GLOBEX, "Globex secret", "The launch codeword is xylophone.")
    add_doc(kb, ACME, "Acme runbook", "Restart the flux capacitor when the zebra alarm fires.", collection="ops")
    # no relevance floor: the wall alone decides what a one-word match may show
    kb.set_context_budget(ACME, {**kb.context_budget(ACME).to_json(), "relevance_floor": 0.0})

    async def main():
        async with Client(server_for(kb, ACME)) as client:
            tools = {t.name: t for t in await client.list_tools()}
            assert "search_memory" in tools
            assert "knowledge base" in tools["search_memory"].description
            ok = await client.call_tool("search_memory", {"query": "xylophone codeword zebra", "max_results": 5})
            bad = await client.call_tool("search_memory", {"query": "x", "max_results": "5"}, raise_on_error=False)
            return ok.content[0].text, bad

    text, bad = asyncio.run(main())
    assert "Acme runbook" in text and "xylophone." not in text and "Globex" not in text
    assert bad.is_error
    from mcp_helpers import log_rows

    rows = log_rows(backend, tool_name="search_memory")
    assert [(r["tenant_id"], r["status"]) for r in rows] == [("acme", "ok"), ("acme", "invalid")]
    assert json.loads(rows[0]["cited_ids"]) and rows[0]["result_tokens"] > 0


def test_the_default_embedder_finds_a_paraphrase_with_no_shared_word(backend):
    from memgate.manager import MemoryManager
    from memgate.manager.kb.embed import WordLlamaEmbedder, default_embedder

    manager = MemoryManager(backend)
    assert isinstance(manager.embedder, WordLlamaEmbedder) and manager.embedder is default_embedder()
    add_doc(manager, ACME, "pets", "Our cat sleeps on the sofa all afternoon.")
    add_doc(manager, ACME, "money", "The quarterly invoice is due at the end of the month.")
    add_doc(manager, ACME, "travel", "The train to the airport leaves every twenty minutes.")
    hits = manager.search_chunks(ACME, "kitten napping atop couches", methods=("vector",))
    assert hits[0].title == "pets"
    assert manager.search_chunks(ACME, "kitten napping atop couches", methods=("lexical",)) == []


def test_a_document_left_out_is_left_out_before_fusion(kb):
    own = add_doc(kb, ACME, "own", "Pumps overheat when the coolant runs dry.").document_id
    add_doc(kb, ACME, "other", "A pump overheats without coolant.")
    everything = kb.search_chunks(ACME, "Pumps overheat when the coolant runs dry.")
    rest = kb.search_chunks(ACME, "Pumps overheat when the coolant runs dry.", exclude_document_id=own)
    assert [h.title for h in everything] == ["own", "other"] and [h.title for h in rest] == ["other"]
    # the left-out document is not the best its leg found, so it no longer scales the other one down
    assert rest[0].score > everything[1].score
