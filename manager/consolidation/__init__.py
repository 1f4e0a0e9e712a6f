"""Consolidation of what is stored (`memgate consolidate`, operator only): near-duplicate records,
records a later correction made stale, notes that repeat a knowledge-base passage; proposed as
merges for review, carried out only once approved, never deleting.

detect.py (the rules, on text and embeddings), records.py (a scope's current records, read through
the wall), proposals.py (the review table and carrying out approved merges), run.py (a run over a
tenant or one user, agent or thread). May import: backend, kb.embed, links.store, portability.scopes,
retention.registry, clock, errors, ids.
"""

from .proposals import DECISIONS as MERGE_DECISIONS
from .proposals import decide_merge, merges
from .run import ConsolidationReport, consolidate

__all__ = ["MERGE_DECISIONS", "ConsolidationReport", "consolidate", "decide_merge", "merges"]
