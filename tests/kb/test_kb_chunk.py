import re

import pytest

from memgate.manager.errors import InvalidArgument
from memgate.manager.kb.chunk import Chunk, chunk_text
from memgate.manager.tokens import count_tokens

SENTENCES = [f"Sentence {i} says that tenant {i % 7} keeps its rows apart from every other tenant." for i in range(60)]
PARAGRAPHS = "\n\n".join(" ".join(SENTENCES[i : i + 4]) for i in range(0, 60, 4))


def test_empty_or_blank_text_has_no_chunks():
    assert chunk_text("") == []
    assert chunk_text(" \n\n\t ") == []


def test_short_text_is_one_chunk_without_surrounding_whitespace():
    text = "\n  Refunds take 14 days.  \n"
    assert chunk_text(text) == [Chunk(0, "Refunds take 14 days.", count_tokens("Refunds take 14 days."), 3, 24)]


@pytest.mark.parametrize("max_tokens, overlap_tokens", [(300, 40), (64, 16), (25, 0), (12, 5)])
def test_chunks_never_exceed_the_budget_and_are_exact_slices(max_tokens, overlap_tokens):
    chunks = chunk_text(PARAGRAPHS, max_tokens=max_tokens, overlap_tokens=overlap_tokens)
    assert [c.position for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert c.text == PARAGRAPHS[c.char_start : c.char_end]
        assert c.token_count == count_tokens(c.text) <= max_tokens
    # Nothing is lost: chunks cover the text from its first to its last character.
    assert chunks[0].char_start == 0 and chunks[-1].char_end == len(PARAGRAPHS)
    assert all(PARAGRAPHS[a.char_end : b.char_start].strip() == "" for a, b in zip(chunks, chunks[1:]))


def test_whole_paragraphs_stay_together_when_they_fit():
    paragraphs = PARAGRAPHS.split("\n\n")
    chunks = chunk_text(PARAGRAPHS, max_tokens=2 * count_tokens(paragraphs[0]) + 10, overlap_tokens=0)
    assert [c.text.split("\n\n") for c in chunks] == [paragraphs[i : i + 2] for i in range(0, len(paragraphs), 2)]


def test_a_paragraph_too_long_for_one_chunk_is_cut_between_sentences():
    text = " ".join(SENTENCES[:10])
    chunks = chunk_text(text, max_tokens=60, overlap_tokens=0)
    assert len(chunks) > 1
    assert all(c.text.endswith("tenant.") for c in chunks)


def test_each_later_chunk_repeats_the_tail_of_the_one_before_from_a_sentence_start():
    text = " ".join(SENTENCES[:10])
    chunks = chunk_text(text, max_tokens=60, overlap_tokens=25)
    for previous, chunk in zip(chunks, chunks[1:]):
        overlap = text[chunk.char_start : previous.char_end]
        assert overlap and count_tokens(overlap) <= 25
        assert overlap.startswith("Sentence ")


def test_overlap_falls_back_to_a_word_start_inside_a_long_sentence():
    text = " ".join(f"word{i}" for i in range(200))
    chunks = chunk_text(text, max_tokens=30, overlap_tokens=6)
    for previous, chunk in zip(chunks, chunks[1:]):
        assert previous.char_start < chunk.char_start < previous.char_end
        assert text[chunk.char_start - 1] == " "


def test_a_word_longer_than_the_budget_is_cut_between_characters():
    text = "x" * 3000
    chunks = chunk_text(text, max_tokens=50, overlap_tokens=0)
    assert "".join(c.text for c in chunks) == text
    assert all(c.token_count <= 50 for c in chunks)


def test_chunking_is_deterministic():
    assert chunk_text(PARAGRAPHS, max_tokens=50) == chunk_text(PARAGRAPHS, max_tokens=50)


@pytest.mark.parametrize(
    "kwargs, message, field",
    [
        ({"max_tokens": 3}, "max_tokens must be >= 4, got 3.", "max_tokens"),
        (
            {"max_tokens": 40, "overlap_tokens": 40},
            "overlap_tokens must be >= 0 and < max_tokens (40), got 40.",
            "overlap_tokens",
        ),
        ({"overlap_tokens": -1}, "overlap_tokens must be >= 0 and < max_tokens (300), got -1.", "overlap_tokens"),
    ],
)
def test_bad_budgets_are_rejected(kwargs, message, field):
    with pytest.raises(InvalidArgument, match=f"^{re.escape(message)}$") as excinfo:
        chunk_text("text", **kwargs)
    assert (excinfo.value.message, excinfo.value.field) == (message, field)


def test_the_chunk_defaults_are_defined_once_in_chunk_settings():
    """chunk_text's defaults are ChunkSettings' (manager/limits.py); no other module writes them as numbers."""
    import inspect
    from pathlib import Path

    from memgate.manager import ChunkSettings

    parameters = inspect.signature(chunk_text).parameters
    defaults = ChunkSettings()
    assert (parameters["max_tokens"].default, parameters["overlap_tokens"].default) == (
        defaults.max_tokens,
        defaults.overlap_tokens,
    )
    root = Path(__file__).resolve().parents[2]
    literal = re.compile(r"\b(max_tokens|overlap_tokens)\s*(:\s*int\s*)?=\s*\d")
    written = [
        f"{path.relative_to(root)}:{n}"
        for folder in ("manager", "server", "toolbox", "bench")
        for path in sorted((root / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if literal.search(line)
    ]
    assert written == []
