"""The promotion gate: what an agent proposes with `remember` becomes durable memory only through it.

policy.py (the tenant's settings), evidence.py (what the proposal rests on and whether the caller
was given it), assess.py (the pluggable typed assessors), gate.py (the decision, in one transaction
with a version check), records.py (where a promoted memory is written), review.py (the operator's
`memgate candidates` commands), render.py (the answer the model reads).
"""

from .assess import Assessor, HttpAssessor, RulesAssessor, Sampler, SamplingAssessor
from .gate import KINDS, SCOPES, Proposal, remember
from .policy import PromotionPolicy
from .reassess import on_replaced

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
]
