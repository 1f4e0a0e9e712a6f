"""The canonical JSON and sha256 a request hash, a manifest and a compaction record are made with."""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["canonical", "sha256"]


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
