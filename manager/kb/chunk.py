"""Split document text into token-bounded chunks at paragraph, sentence or word boundaries."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import InvalidArgument
from ..limits import ChunkSettings

__all__ = ["Chunk", "chunk_text"]

# One character can be up to 4 byte-level tokens, so a smaller budget could not always
# make progress through text it has to cut mid-word.
MIN_MAX_TOKENS = 4
#: the defaults are ChunkSettings', defined once in manager/limits.py
_DEFAULTS = ChunkSettings()


@dataclass(frozen=True)
class Chunk:
    """One chunk; `text == source[char_start:char_end]` and it has `token_count` tokens."""

    position: int
    text: str
    token_count: int
    char_start: int
    char_end: int


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# A sentence ends at . ! ? or … (plus closing quotes/brackets) before whitespace, or at a line break.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|\s*\n\s*")
_WORD_BREAK = re.compile(r"\s+")


def chunk_text(
    text: str, *, max_tokens: int = _DEFAULTS.max_tokens, overlap_tokens: int = _DEFAULTS.overlap_tokens
) -> list[Chunk]:
    """Chunks of at most `max_tokens` o200k tokens; each after the first repeats up to
    `overlap_tokens` of the previous one's tail, starting at a sentence or word boundary.

    Whole paragraphs are kept together when they fit, then sentences, then words; only a
    single word longer than `max_tokens` is cut between characters. Deterministic.
    """
    if max_tokens < MIN_MAX_TOKENS:
        raise InvalidArgument(f"max_tokens must be >= {MIN_MAX_TOKENS}, got {max_tokens}.", field="max_tokens")
    if not 0 <= overlap_tokens < max_tokens:
        raise InvalidArgument(
            f"overlap_tokens must be >= 0 and < max_tokens ({max_tokens}), got {overlap_tokens}.",
            field="overlap_tokens",
        )
    from ..tokens import SpanTokens

    count = SpanTokens(text)  # count(a, b) == count_tokens(text[a:b])
    segments = _segments(text, max_tokens, count)
    chunks: list[Chunk] = []
    i = 0
    while i < len(segments):
        start = segments[i][0]
        if chunks and overlap_tokens:
            start = _overlap_start(text, chunks[-1], segments[i][0], overlap_tokens, count)
            # The overlap yields when it would leave no room for the next segment.
            if count(start, segments[i][1]) > max_tokens:
                start = segments[i][0]
        end = segments[i][1]
        i += 1
        tokens = None  # the count of text[start:end] once a growing chunk has been counted
        while i < len(segments):
            grown = count(start, segments[i][1])
            if grown > max_tokens:
                break
            end, tokens = segments[i][1], grown
            i += 1
        piece = text[start:end]
        chunks.append(Chunk(len(chunks), piece, tokens if tokens is not None else count(start, end), start, end))
    return chunks


#: count(a, b): the o200k tokens of text[a:b]
Count = Callable[[int, int], int]


def _segments(text: str, max_tokens: int, count: Count) -> list[tuple[int, int]]:
    """(start, end) spans, in order, each within `max_tokens`: the coarsest unit that fits."""
    out: list[tuple[int, int]] = []
    levels = (_PARAGRAPH_BREAK, _SENTENCE_BREAK, _WORD_BREAK)

    def split(start: int, end: int, level: int) -> None:
        for s, e in _spans(text, start, end, levels[level]):
            if count(s, e) <= max_tokens:
                out.append((s, e))
            elif level + 1 < len(levels):
                split(s, e, level + 1)
            else:
                out.extend(_cut_word(text, s, e, max_tokens, count))

    split(0, len(text), 0)
    return out


def _spans(text: str, start: int, end: int, breaks: re.Pattern[str]) -> list[tuple[int, int]]:
    """Non-blank spans of text[start:end] between matches of `breaks`, trimmed of whitespace."""
    spans = []
    pos = start
    for match in breaks.finditer(text, start, end):
        spans.append((pos, match.start()))
        pos = match.end()
    spans.append((pos, end))
    trimmed = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            trimmed.append((s, e))
    return trimmed


def _cut_word(text: str, start: int, end: int, max_tokens: int, count: Count) -> list[tuple[int, int]]:
    """Cut one over-long word into the longest prefixes that fit, by binary search."""
    pieces = []
    while start < end:
        lo, hi = start + 1, end
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(start, mid) <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        pieces.append((start, lo))
        start = lo
    return pieces


def _overlap_start(text: str, previous: Chunk, next_start: int, overlap_tokens: int, count: Count) -> int:
    """Where the next chunk starts so that it repeats the previous chunk's tail.

    The earliest sentence start whose tail fits in `overlap_tokens`; failing that, the
    earliest word start; failing that, no overlap (`next_start`).
    """
    word_starts = [m.start() for m in re.finditer(r"\S+", text[previous.char_start : previous.char_end])]
    best_word = best_sentence = None
    # Walk back from the end; stop at the first start (after the chunk's own) that is too far.
    for offset in reversed(word_starts[1:]):
        pos = previous.char_start + offset
        if count(pos, previous.char_end) > overlap_tokens:
            break
        best_word = pos
        if _is_sentence_start(text, pos):
            best_sentence = pos
    chosen = best_sentence if best_sentence is not None else best_word
    return next_start if chosen is None else chosen


def _is_sentence_start(text: str, pos: int) -> bool:
    # A short look-back is enough: only the closing punctuation before `pos` matters.
    window = max(0, pos - 32)
    before = text[window:pos].rstrip(" \t")
    if (not before and window == 0) or before.endswith("\n"):
        return True
    before = before.rstrip("\"'”’)]")
    return before.endswith((".", "!", "?", "…")) and text[pos - 1].isspace()
