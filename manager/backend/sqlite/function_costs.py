"""Cost gates for the SQLite functions whose work grows with two argument lengths multiplied.

SQLite's progress handler and interrupt() act between VM instructions, never inside one
function call, so a single call must be cheap whatever the query feeds it. Most allowed
functions are linear in their input, which the length limit bounds. These are not:

- instr(X, Y) and replace(X, Y, Z) compare Y at every position of X (about len(X) * len(Y)
  byte comparisons): 1 MB against a 100 KB needle takes seconds;
- trim(X, Y), ltrim(X, Y), rtrim(X, Y) test each trimmed character of X against every
  character of Y (about len(X) * len(Y) steps, far slower per step than memcmp).

LIKE and GLOB cost about len(X) * len(pattern) too; the connection's pattern-length limit
bounds them natively (query.py), so they are not gated here.

Each gate is a same-named function on the query connection (it overrides the built-in
for that connection only): it estimates the call's cost from its arguments' lengths and
refuses the call past a budget, or else evaluates the built-in on a private in-memory
connection that holds no data, so results are exactly SQLite's. The one-argument trims
are linear and stay built-in.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["TOO_BIG", "TOO_COSTLY", "CostGates"]

#: why a gated call was refused; query.py turns these into rules
TOO_COSTLY, TOO_BIG = "too-costly", "too-big"

# Budgets in estimated steps, each about 0.1 s of one core at its measured rate
# (memcmp steps: ~3e-11 s; trim's per-character steps: ~5e-9 s).
_COMPARE_STEPS = 3_000_000_000
_TRIM_STEPS = 30_000_000


def _length(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, (str, bytes)):
        return len(value)
    return len(str(value))  # a number: SQLite compares its text, which is about this long


def _scan_cost(args: Sequence[Any]) -> int:
    haystack, needle = _length(args[0]), _length(args[1])
    return (haystack - needle + 1) * needle if needle <= haystack else 0


def _set_cost(args: Sequence[Any]) -> int:
    return _length(args[0]) * _length(args[1])


# name, number of arguments, cost estimate, budget
_GATED: tuple[tuple[str, int, Callable[[Sequence[Any]], int], int], ...] = (
    ("instr", 2, _scan_cost, _COMPARE_STEPS),
    ("replace", 3, _scan_cost, _COMPARE_STEPS),
    ("trim", 2, _set_cost, _TRIM_STEPS),
    ("ltrim", 2, _set_cost, _TRIM_STEPS),
    ("rtrim", 2, _set_cost, _TRIM_STEPS),
)


class _GateRefused(Exception):
    """Raised inside a gate; SQLite reports it as 'user-defined function raised exception'."""


class CostGates:
    """The gates of one query connection, and why the last refused call was refused."""

    def __init__(self, limits: dict[int, int]):
        self.refused: str | None = None
        self._native = sqlite3.connect(":memory:", check_same_thread=False)
        for category, value in limits.items():  # the same limits as the query connection
            self._native.setlimit(category, value)

    def install(self, conn: sqlite3.Connection) -> None:
        for name, arity, cost, budget in _GATED:
            conn.create_function(name, arity, self._gate(name, arity, cost, budget), deterministic=True)

    def reset(self) -> None:
        self.refused = None

    def close(self) -> None:
        self._native.close()

    def _gate(self, name: str, arity: int, cost: Callable[[Sequence[Any]], int], budget: int):
        statement = f"SELECT {name}({', '.join('?' * arity)})"

        def call(*args: Any) -> Any:
            if cost(args) > budget:
                self.refused = TOO_COSTLY
                raise _GateRefused(name)
            try:
                return self._native.execute(statement, args).fetchone()[0]
            except sqlite3.DataError:  # the result would pass the length limit
                self.refused = TOO_BIG
                raise _GateRefused(name) from None

        return call
