"""The handler allowlist: each handler is one Memory Manager method and its argument model.

A toolbox row names a handler; only names in HANDLERS can become tools. Each handler
is one module here exposing `SPEC`; adding a handler is one new module and one entry
in `_ALLOWLIST`.
"""

from __future__ import annotations

from . import (
    clarify,
    execute_query,
    expand,
    fetch,
    fetch_image,
    link_memory,
    lookup_entity,
    memory,
    record_turn,
    remember,
    report,
    review_candidate,
    search,
    search_memory,
    show_manifest,
    show_memory,
)
from .spec import HandlerSpec, StrictArgs

__all__ = ["HANDLERS", "HandlerSpec", "StrictArgs"]

_ALLOWLIST = (
    lookup_entity,
    search_memory,
    execute_query,
    memory,
    expand,
    clarify,
    report,
    search,
    fetch,
    fetch_image,
    link_memory,
    record_turn,
    remember,
    show_manifest,
    show_memory,
    review_candidate,
)

HANDLERS: dict[str, HandlerSpec] = {m.SPEC.name: m.SPEC for m in _ALLOWLIST}
