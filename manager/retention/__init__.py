"""Retention and erasure, for the operator: `memgate forget` (erase.py), `memgate expire` (expire.py).

Operator-only: the CLI calls these functions with the backend; no tool and no MemoryManager
method reaches them. Which tables hold content, and how each is erased and expired, is the
registry (registry.py); the backend's RetentionStore (manager/backend/retention_store.py) does
the reads and writes. May import: backend, clock, errors, ids, context.manifest's helpers.
"""

from .erase import SUBJECT_COLUMNS, ErasureReport, erase
from .expire import ExpiryReport, expire
from .policy import RetentionPolicy, load_policy
from .policy import set_policy as set_retention
from .registry import ERASED, REGISTRY, Retention, TableSpec, memory_types
from .replay import erased_ids, erasures

__all__ = [
    "ERASED",
    "REGISTRY",
    "SUBJECT_COLUMNS",
    "ErasureReport",
    "ExpiryReport",
    "Retention",
    "RetentionPolicy",
    "TableSpec",
    "erase",
    "erased_ids",
    "erasures",
    "expire",
    "load_policy",
    "memory_types",
    "set_retention",
]
