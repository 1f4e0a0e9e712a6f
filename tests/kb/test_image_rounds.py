"""An image a result carries is charged to the context window's tool reserve at its estimated cost."""

from __future__ import annotations

import json
import uuid

import pytest
from backend_helpers import operator_rows
from context_helpers import FACT_CHECK, JANE_IN_REVIEW
from image_helpers import image_bytes

from memgate.manager import ACME, CallRecord, count_tokens, now_iso
from memgate.manager.demo.dataset import ACME_BUDGET


def _shown(manager, identity, query: str) -> None:
    """search_memory as a tool round, logged as the dispatcher logs it (the record of what was shown)."""
    call_id = str(uuid.uuid4())
    out = manager.run_tool_round(
        identity, call_id=call_id, tool_name="search_memory", call=lambda: manager.search_memory(identity, query)
    )
    manager.log_call(
        identity,
        CallRecord(
            call_id=call_id, called_at=now_iso(), tool_name="search_memory", status=out.status, cited_ids=out.cited_ids
        ),
    )


def _expand(manager, identity, image_id: str):
    return manager.run_tool_round(
        identity,
        call_id=str(uuid.uuid4()),
        tool_name="expand",
        call=lambda: manager.expand(identity, image_id, include_bytes=True),
    )


def test_an_images_estimated_tokens_are_charged_with_its_record(manager, two_tenants, tmp_path):
    path = tmp_path / "map.png"
    path.write_bytes(image_bytes("PNG", (300, 250)))  # 300 * 250 / 750 = 100 tokens
    image_id = manager.ingest_file(JANE_IN_REVIEW, path, description="the zebracorn region map").image_id
    manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    _shown(manager, JANE_IN_REVIEW, "zebracorn region map")
    out = _expand(manager, JANE_IN_REVIEW, image_id)
    assert len(out.images) == 1 and out.tokens == count_tokens(out.text) + 100
    [event] = [
        e
        for e in operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'tool_result'")
        if json.loads(e["content_json"])["tool"] == "expand"
    ]
    assert event["token_count"] == out.tokens and image_id in event["content"]


@pytest.mark.parametrize("refuse", [True, False])
def test_an_image_costing_more_than_the_reserve_left_is_never_charged(manager, two_tenants, tmp_path, refuse):
    """With the budget's spent_rounds "refuse": one sentence, no bytes. By default the call is answered
    outside the window, with its notice, and nothing is charged."""
    if refuse:
        manager.set_context_budget(ACME, {**ACME_BUDGET, "spent_rounds": "refuse"})
    path = tmp_path / "poster.png"
    path.write_bytes(image_bytes("PNG", (1000, 1000)))  # 1,334 tokens: more than the 1,000-token reserve
    image_id = manager.ingest_file(JANE_IN_REVIEW, path, description="the zebracorn launch poster").image_id
    manager.assemble_context(JANE_IN_REVIEW, FACT_CHECK, "fact_check")
    _shown(manager, JANE_IN_REVIEW, "zebracorn launch poster")
    out = _expand(manager, JANE_IN_REVIEW, image_id)
    if refuse:
        assert out.is_error and out.images == () and out.text.startswith("This result needs ")
    else:
        assert not out.is_error and len(out.images) == 1
        assert out.notice.startswith("window: this result needs ") and "not charged" in out.notice
    charged = [
        e
        for e in operator_rows(manager.backend, "conversation_memory", "WHERE event_type = 'tool_result'")
        if json.loads(e["content_json"])["tool"] == "expand"
    ]
    assert charged == []
