"""Record ids: a short type prefix, then time-ordered hex, then randomness."""

from __future__ import annotations

import secrets
import time


def new_id(prefix: str) -> str:
    return f"{prefix}_{time.time_ns() // 1000:014x}{secrets.token_hex(4)}"
