"""The demo dataset: two tenants whose facts overlap, so isolation and corrections are visible.

May import: anything in the manager (it seeds every capability through the facade and sessions).
"""

from .dataset import (
    ACME,
    DEMO_QUESTION,
    DEMO_TENANTS,
    GLOBEX,
    record_demo_window,
    seed_demo,
    tenants_not_the_demos,
)

__all__ = [
    "ACME",
    "DEMO_QUESTION",
    "DEMO_TENANTS",
    "GLOBEX",
    "record_demo_window",
    "seed_demo",
    "tenants_not_the_demos",
]
