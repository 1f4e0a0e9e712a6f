"""Helpers for the context-window tests: the demo fact-check request and reading a manifest by refs."""

from __future__ import annotations

from dataclasses import replace

from memgate.manager import ACME

#: jane in the demo thread about the Helios numbers
JANE_IN_REVIEW = replace(ACME, thread="helios-review")
FACT_CHECK = "Is Helios RAG's nDCG@10 on BEIR really 0.92?"


def placed(manifest: dict) -> dict[str, tuple[str, str, str]]:
    """memory id -> (slice, tier, status), for every memory the window holds."""
    return {m["ref"]["id"]: (m["slice"], m["tier"], m["status"]) for m in manifest["memories"]}


def excluded(manifest: dict) -> dict[str, str]:
    """memory id -> the rule that kept it out."""
    return {e["ref"]["id"]: e["rule"] for e in manifest["exclusions"]}


def refs(manifest: dict, slice_name: str) -> list[tuple[str, str, int]]:
    return [tuple(m["ref"].values()) for m in manifest["memories"] if m["slice"] == slice_name]
