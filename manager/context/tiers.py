"""Fitting a slice's memories into its tokens: each at full size, else its stored summary, else a pointer.

Greedy in the slice's order. A pointer is the memory's id, type, one line and the token
cost of its full form, so the model can `expand` it. A required memory (a current fact
that an admitted memory's stale number needs beside it) is placed first and only whole:
if it cannot fit even after unused share has passed on in overflow_order, the assembly
fails naming the slice rather than show the stale number alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import ContextTooSmall
from ..limits import ContextBudget
from .budget import too_small_hint
from .candidates import Candidate
from .layout import FULL, POINTER, SUMMARY
from .render import cost, record, slice_overhead

__all__ = ["Fitted", "Placed", "SliceFitter"]


@dataclass(frozen=True)
class Placed:
    candidate: Candidate
    tier: str
    record: str
    tokens: int


@dataclass(frozen=True)
class Fitted:
    placed: list[Placed]
    #: candidates with no room even as a pointer, and the tokens a pointer needed
    dropped: list[tuple[Candidate, int]]
    used: int
    #: required memories with no room at full size: (candidate, tokens needed, tokens left)
    short: list[tuple[Candidate, int, int]] = field(default_factory=list)


class SliceFitter:
    """Fits the candidates of each slice; renders each (memory, tier) once however often it refits."""

    def __init__(self, by_slice: dict[str, Sequence[Candidate]], *, budget: ContextBudget, tenant: str):
        self.by_slice = by_slice
        self.budget, self.tenant = budget, tenant
        self._rendered: dict[tuple[int, str], tuple[str, int]] = {}
        self.fitted: dict[str, Fitted] = {}

    def fill(self, name: str, allowance: int) -> int:
        fitted = self._fit(name, allowance)
        self.fitted[name] = fitted
        return fitted.used

    def require_whole(self) -> None:
        """ContextTooSmall naming the first slice whose required memory did not fit, after overflow."""
        for name, fitted in self.fitted.items():
            for c, need, left in fitted.short:
                raise ContextTooSmall(
                    f"the {name} slice cannot hold the current fact {c.id} ({need} tokens, {left} left) "
                    f"that a memory with its earlier value needs beside it",
                    field=name,
                    hint=too_small_hint(self.tenant, self.budget, need - left),
                )

    def _form(self, c: Candidate, tier: str) -> tuple[str, int] | None:
        key = (id(c), tier)
        if key not in self._rendered:
            if tier == SUMMARY and c.kind != "workflow":
                return None
            full = None if tier == FULL else self._form(c, FULL)[1]  # type: ignore[index]
            text = record(c.kind, c.row, tier=tier, status=c.status, annotations=c.stale, link=c.link, full_tokens=full)
            self._rendered[key] = (text, cost(text))
        return self._rendered[key]

    def _fit(self, name: str, allowance: int) -> Fitted:
        members = self.by_slice.get(name, ())
        ordered = [c for c in members if c.required] + [c for c in members if not c.required]
        overhead = slice_overhead(name)
        placed: list[Placed] = []
        dropped: list[tuple[Candidate, int]] = []
        short: list[tuple[Candidate, int, int]] = []
        used = 0
        for c in ordered:
            opening = 0 if placed else overhead
            for tier in (FULL,) if c.required else (FULL, SUMMARY, POINTER):
                form = self._form(c, tier)
                if form is not None and used + opening + form[1] <= allowance:
                    placed.append(Placed(c, tier, *form))
                    used += opening + form[1]
                    break
            else:
                if c.required:  # overflow may still grant the room: judged in require_whole
                    short.append((c, self._form(c, FULL)[1] + opening, allowance - used))
                    continue
                dropped.append((c, self._form(c, POINTER)[1] + opening))
        return Fitted(placed, dropped, used, short)
