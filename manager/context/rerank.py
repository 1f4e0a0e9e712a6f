"""The rerank step of selection: a small protocol, so a cross-encoder or an LLM judge can replace it.

A reranker gives each candidate a score in 0..1 for the question; selection weighs it
with confidence and recency. The default passes the hybrid retrieval score through.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from .candidates import Candidate

__all__ = ["Reranker", "RetrievalScore"]


class Reranker(Protocol):
    #: recorded in the manifest's selection version
    name: str

    def scores(self, question: str, candidates: Sequence[Candidate]) -> list[float]:
        """One score in 0..1 per candidate, in order."""


class RetrievalScore:
    """The default: each candidate's hybrid retrieval score (already 0..1)."""

    name = "retrieval"

    def scores(self, question: str, candidates: Sequence[Candidate]) -> list[float]:
        return [c.retrieval for c in candidates]
