"""The promotion gate: what an agent proposes with `remember` becomes durable memory only through it.

policy.py (the tenant's settings), screen.py (secrets, injections, small talk: refused),
evidence.py (what the proposal rests on and whether the caller was given it), text.py and
support.py (reading a claim against its evidence without a model), duplicates.py (duplicates by
meaning), assess.py and assess_http.py (the pluggable typed assessors), gate.py (the decision),
commit.py (its one transaction, with a version check), records.py (where a promoted memory is
written), review.py (the operator's `memgate candidates` commands), render.py (the answer the model
reads).
"""

from .assess import Assessor, RulesAssessor, Sampler, SamplingAssessor
from .assess_http import HttpAssessor
from .gate import KINDS, SCOPES, Proposal, remember
from .policy import PromotionPolicy
from .reassess import on_replaced


def warm() -> None:
    """Import and compile what a first proposal would (detect-secrets' plugins: a fifth of a second), so a
    bulk run or a benchmark does not count it in its first proposal."""
    from . import screen, text

    text.warm()
    screen.secret("warm")


__all__ = [
    "KINDS",
    "SCOPES",
    "Assessor",
    "HttpAssessor",
    "PromotionPolicy",
    "Proposal",
    "RulesAssessor",
    "Sampler",
    "SamplingAssessor",
    "on_replaced",
    "remember",
    "warm",
]
