"""The window's budget arithmetic: reserves off, fixed slices charged, the rest split by shares.

    available = usable_context - output_reserve - tool_reserve - request_overhead_reserve
    remainder = available - (guidelines + persona + tool_surface + question), at their real cost
    allowance = floor(remainder * share) per variable slice

A fixed slice that does not fit fails the assembly naming it: a policy is never cut.
What a slice leaves unused (and what the shares leave unallocated) passes on to the
slices in overflow_order, each taking all of it and passing on what it still leaves.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import ContextTooSmall
from ..limits import ContextBudget
from .layout import FIXED, VARIABLE

__all__ = ["BudgetPlan", "charge_fixed", "grant", "too_small_hint"]


def too_small_hint(tenant: str, budget: ContextBudget, short: int) -> str:
    """The fix for a window the budget cannot hold: a larger usable_context (or smaller reserves)."""
    return (
        f"Raise usable_context by at least {short} tokens, e.g. `memgate budget set -t {tenant} "
        f"usable_context=8000`, or lower the reserves (now {budget.reserved} tokens)."
    )


@dataclass
class BudgetPlan:
    budget: ContextBudget
    intent: str
    fixed: dict[str, int]
    remainder: int
    #: each variable slice's own share of the remainder
    allowances: dict[str, int]
    #: what each slice could use after unused share passed on
    granted: dict[str, int] = field(default_factory=dict)
    used: dict[str, int] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        b = self.budget
        return {
            "usable_context": b.usable_context,
            "reserves": {
                "output": b.output_reserve,
                "tool": b.tool_reserve,
                "request_overhead": b.request_overhead_reserve,
            },
            "available": b.available,
            "fixed": dict(self.fixed),
            "remainder": self.remainder,
            "shares": b.shares_for(self.intent).model_dump(),
            "allowances": dict(self.allowances),
            "overflow_order": list(b.overflow_order),
            "granted": dict(self.granted),
            "used": dict(self.used),
            "total": sum(self.fixed.values()) + sum(self.used.values()),
        }


def charge_fixed(budget: ContextBudget, intent: str, fixed: dict[str, int], tenant: str) -> BudgetPlan:
    """Charge the fixed slices in layout order; ContextTooSmall naming the first that does not fit."""
    shares = budget.shares_for(intent)
    left = budget.available
    for name in FIXED:
        cost = fixed[name]
        if cost > left:
            raise ContextTooSmall(
                f"the {name} slice needs {cost} tokens but only {left} of the budget's {budget.available} are "
                f"left (usable_context {budget.usable_context} less {budget.reserved} reserved"
                f"{' and the slices before it' if left < budget.available else ''})",
                field=name,
                hint=too_small_hint(tenant, budget, cost - left),
            )
        left -= cost
    allowances = {name: math.floor(left * shares.of(name)) for name in VARIABLE}
    return BudgetPlan(budget, intent, dict(fixed), left, allowances)


def grant(plan: BudgetPlan, fill: Callable[[str, int], int]) -> None:
    """Fill every variable slice with its allowance, then pass unused tokens on in overflow_order.

    `fill(slice, tokens)` (re)fits the slice within `tokens` from scratch and returns what it used.
    """
    used = {name: fill(name, plan.allowances[name]) for name in VARIABLE}
    pool = plan.remainder - sum(used.values())
    granted = dict(plan.allowances)
    for name in plan.budget.overflow_order:
        if pool <= 0:
            break
        granted[name] = used[name] + pool
        used[name] = fill(name, granted[name])
        pool = granted[name] - used[name]
    plan.granted, plan.used = granted, used
