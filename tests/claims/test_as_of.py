"""lookup_entity and execute_query answer as of a past moment: the versions written by then, labelled then.

The expectation is built by hand over one fact corrected twice (each correction through the
correction path, at a chosen time): at each moment, which version was current and which had been
superseded, and that a version written later is not there at all (as Flashback at that moment
would show; tests/backend/contract/test_as_of_flashback.py compares with Oracle's Flashback where it runs).
"""

from __future__ import annotations

import re

import pytest
from fastmcp import Client
from mcp_helpers import stdio_app

from memgate.manager import ACME, InvalidArgument, load_tool_definitions
from memgate.manager.claims import entities

pytestmark = pytest.mark.anyio

SUBJECT, PREDICATE = "model:atlas", "mrr"
T1, T2, T3 = "2026-03-01T09:00:00.000Z", "2026-04-01T09:00:00.000Z", "2026-05-01T09:00:00.000Z"
#: moment -> the (content, version, status) lookup_entity must show as of it, current first
EXPECTED = {
    "2026-02-01T00:00:00.000Z": [],
    "2026-03-15T00:00:00.000Z": [("0.40", 1, "current")],
    "2026-04-01T09:00:00.000Z": [("0.45", 2, "current"), ("0.40", 1, "superseded")],
    "2026-04-20T12:00:00.000Z": [("0.45", 2, "current"), ("0.40", 1, "superseded")],
    "2026-06-01T00:00:00.000Z": [("0.47", 3, "current"), ("0.45", 2, "superseded"), ("0.40", 1, "superseded")],
}


@pytest.fixture
def corrected(manager):
    manager.seed_tools(ACME, load_tool_definitions())
    with manager.backend.session(ACME) as s:
        for content, at in (("0.40", T1), ("0.45", T2), ("0.47", T3)):
            entities.correct(s, ACME, subject=SUBJECT, predicate=PREDICATE, content=content, now=at)
    return manager


def _shown(manager, **kwargs):
    out = manager.lookup_entity(ACME, SUBJECT, PREDICATE, **kwargs)
    return [(c["version"], c["status"]) for c in out.structured["claims"]], out


@pytest.mark.parametrize("moment", sorted(EXPECTED))
def test_as_of_lookup_matches_the_hand_built_history_of_a_corrected_fact(corrected, moment):
    shown, out = _shown(corrected, as_of=moment)
    assert shown == [(v, status) for _, v, status in EXPECTED[moment]]
    contents = [c["content"] for c in _claims(corrected, moment)]
    assert contents == [content for content, _, _ in EXPECTED[moment]]
    assert out.text.splitlines()[0].startswith(f"entity: {SUBJECT} {PREDICATE} | as of: {moment} | claims: ")


def _claims(manager, moment):
    claims, _ = manager.lookup_claims(ACME, SUBJECT, PREDICATE, now=moment)
    return [v.row for c in claims for v in ([c.current] if c.current else []) + c.history]


def test_without_as_of_the_answer_is_todays_and_says_no_moment(corrected):
    shown, out = _shown(corrected)
    assert shown == [(3, "current"), (2, "superseded"), (1, "superseded")]
    assert "as of" not in out.text.splitlines()[0]


def test_as_of_takes_a_date_or_an_offset_and_stores_utc(corrected):
    assert _shown(corrected, as_of="2026-04-20")[0] == [(2, "current"), (1, "superseded")]
    # 11:00 at +02:00 is 09:00 UTC, the second correction's moment: version 2 is in force
    assert _shown(corrected, as_of="2026-04-01T11:00:00+02:00")[0] == [(2, "current"), (1, "superseded")]
    assert _shown(corrected, as_of="2026-04-01T10:59:59+02:00")[0] == [(1, "current")]


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("yesterday", "as_of 'yesterday' is not an ISO-8601 date or time"),
        ("2026-13-01", "is not an ISO-8601 date or time"),
        ("2999-01-01", "as_of 2999-01-01T00:00:00.000Z is in the future"),
    ],
)
def test_a_bad_as_of_is_refused_naming_the_field(corrected, value, says):
    with pytest.raises(InvalidArgument, match=re.escape(says)) as refused:
        corrected.lookup_entity(ACME, SUBJECT, PREDICATE, as_of=value)
    assert refused.value.field == "as_of"
    with pytest.raises(InvalidArgument, match=re.escape(says)):
        corrected.execute_query(ACME, "SELECT 1 AS one", as_of=value)


def test_execute_query_history_views_answer_as_of_the_same_moments(corrected):
    sql = f"SELECT version, status FROM entity_memory_history WHERE subject = '{SUBJECT}' ORDER BY version DESC"
    for moment, expected in EXPECTED.items():
        out = corrected.execute_query(ACME, sql, as_of=moment)
        rows = [line for line in out.text.splitlines() if line.startswith("| ") and "version" not in line]
        got = [tuple(cell.strip() for cell in line.strip("|").split("|")) for line in rows]
        assert got == [(str(v), status) for _, v, status in expected], moment
        assert f"as of: {moment}" in out.text.splitlines()[0]
    current = corrected.execute_query(
        ACME, f"SELECT content FROM entity_memory WHERE subject = '{SUBJECT}'", as_of="2026-04-20"
    )
    assert "| 0.45 |" in current.text and "0.47" not in current.text


async def test_the_tools_take_as_of_over_mcp_and_refuse_a_bad_one(sqlite_path, corrected):
    app, served = stdio_app(sqlite_path)
    async with Client(app) as c:
        then = await c.call_tool("lookup_entity", {"subject": SUBJECT, "predicate": PREDICATE, "as_of": "2026-03-15"})
        bad = await c.call_tool("lookup_entity", {"subject": SUBJECT, "as_of": "soon"}, raise_on_error=False)
        query = await c.call_tool(
            "execute_query", {"query": "SELECT count(*) AS n FROM entity_memory_history", "as_of": "2026-03-15"}
        )
    served.close()
    text = then.content[0].text
    assert "as of: 2026-03-15T00:00:00.000Z | claims: 1 | versions shown: 1" in text
    assert 'status="current" version="1"' in text and 'version="2"' not in text
    assert bad.is_error and "as_of" in bad.content[0].text
    assert "| 1 |" in query.content[0].text
