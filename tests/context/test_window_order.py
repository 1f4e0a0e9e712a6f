"""Windows laid out for host prompt caching: the stable slices first, the metadata line after them."""

from __future__ import annotations

import os
from dataclasses import replace

from context_helpers import FACT_CHECK, JANE_IN_REVIEW

from memgate.manager.context import manifest as manifests
from memgate.manager.context.render import window_text

COMPARE = "Compare the July and August Helios runs"


def _shared(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def _stable_part(text: str) -> str:
    return text.split("\ncontext window: ", 1)[0]


def test_two_windows_of_a_caller_share_guidelines_persona_and_tools_as_their_leading_bytes(manager, two_tenants):
    first = manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    second = manager.assemble_context(JANE_IN_REVIEW, COMPARE, "comparison")
    stable = _stable_part(first.text)
    assert first.text.startswith('<slice name="guidelines">') and stable.endswith("</slice>")
    assert [line for line in stable.splitlines() if line.startswith("<slice ")] == [
        '<slice name="guidelines">',
        '<slice name="persona">',
        '<slice name="tool_surface">',
    ]
    assert _stable_part(second.text) == stable
    assert _shared(first.text, second.text) >= len(stable) > 2000  # was 16 with the metadata line first
    assert first.manifest["window_hash"] == manifests.sha256(first.text)
    assert manager.replay_context(JANE_IN_REVIEW, first.manifest_id).matches


def test_a_manifest_rendered_by_window_1_still_replays_to_its_own_hash(manager, backend, two_tenants):
    # a user with no turns: window-1 and window-3 differ only in where the metadata line goes (a turn's
    # record changed in window-3; the next test replays one)
    omar = replace(JANE_IN_REVIEW, user="omar")
    window = manager.assemble_context(omar, FACT_CHECK, "fact_check")
    lines = window.text.split("\n")
    head = next(line for line in lines if line.startswith("context window: "))
    old_text = "\n".join([head, *(line for line in lines if line != head)])  # window-1: the metadata line first
    old = {
        **window.manifest,
        "manifest_id": "ctx_window_one",
        "renderer_version": "window-1",
        "window_hash": manifests.sha256(old_text),
    }
    with backend.session(omar) as s, s.transaction():
        manifests.write(s, omar, old, old_text, window.tokens)
    replayed = manager.replay_context(omar, "ctx_window_one")
    assert replayed.matches and replayed.text == old_text
    assert window_text(head, {}, "q", "window-1").startswith("context window: ")
