"""execute_query's bounds over MCP: every costly query ends by its deadline and burns no CPU after
its reply, and no query holds its result rows whole (measured on a real stdio server process).

A deadline cannot stop one SQL function call, so each case below is one that ran for many
seconds inside a single call (or spun on after its reply) before the bounds: the cost
gates, the connection's limits and admission's printf limit must end each within
deadline + 1 s. "No CPU after" is measured on this process across a quiet second after
the reply: a worker thread still running would add most of that second.
"""

from __future__ import annotations

import resource
import time
from pathlib import Path

import anyio
import pytest
from fastmcp import Client
from mcp_helpers import stdio_app
from stdio_helpers import RawStdio

from memgate.manager import ACME

TIMEOUT_S = 1
# a 512 KiB string of 'a', built in a few VM steps
DOUBLED = "WITH RECURSIVE r(n, s) AS (SELECT 0, 'a' UNION ALL SELECT n + 1, s || s FROM r WHERE n < 19) "
# 400 rows of it, for a LIKE or GLOB that is cheap enough per call but runs on past the deadline
ROWS = (
    "WITH RECURSIVE r(n, s) AS (SELECT 0, 'a' UNION ALL SELECT n + 1, "
    "CASE WHEN length(s) < 500000 THEN s || s ELSE s END FROM r WHERE n < 400) "
)
REFUSED, STOPPED = "The query was rejected: query refused (rule {}):", "The call took longer than its time limit"

CASES = {
    "like-issue": (
        "SELECT printf('%.*c', 300000, 'a') LIKE '%' || printf('%.*c', 40000, 'a') || 'b'",
        REFUSED.format("size"),
    ),
    "printf-issue": ("SELECT printf('%.*c', 1000000000, 'x')", REFUSED.format("size")),
    "printf-width-from-data": (
        "SELECT printf('%.*c', length(content) * 100000, 'x') FROM entity_memory",
        REFUSED.format("size"),
    ),
    "nested-printf": ("SELECT printf('%.1000c', printf('%.*c', 999999, 'x'))", REFUSED.format("size")),
    "replace-amplification": (
        "SELECT length(replace(replace(replace(replace(printf('%.1000c', 'a'), 'a', "
        "'aaaaaaaaaa'), 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa'))",
        REFUSED.format("too-big"),
    ),
    "instr-long-needle": (
        DOUBLED + "SELECT instr(s, substr(s, 1, length(s) / 2) || 'b') FROM r WHERE n = 19",
        REFUSED.format("too-costly"),
    ),
    "replace-long-needle": (
        DOUBLED + "SELECT length(replace(s, substr(s, 1, 100000) || 'b', '')) FROM r WHERE n = 19",
        REFUSED.format("too-costly"),
    ),
    "trim-long-set": (
        DOUBLED + "SELECT length(trim(s, printf('%.999c', 'b') || 'a')) FROM r WHERE n = 19",
        REFUSED.format("too-costly"),
    ),
    "like-long-pattern": (
        DOUBLED + "SELECT s LIKE '%' || substr(s, 1, 40000) || 'b' FROM r WHERE n = 19",
        REFUSED.format("pattern"),
    ),
    "like-many-rows": (ROWS + "SELECT count(*) FROM r WHERE s LIKE '%' || substr(s, 1, 97) || 'b'", STOPPED),
    "glob-many-rows": (
        ROWS + "SELECT count(*) FROM r WHERE s GLOB '*' || printf('%.3c', '[bcdefghijklmnopqrstuvwxya]') || 'b'",
        STOPPED,
    ),
    "doubling-to-the-limit": (
        "WITH RECURSIVE r(n, s) AS (SELECT 0, 'a' UNION ALL SELECT n + 1, s || s FROM r) SELECT max(length(s)) FROM r",
        REFUSED.format("too-big"),
    ),
    "recursive-cte": (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
        STOPPED,
    ),
}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.parametrize("case", CASES)
def test_a_costly_query_ends_by_its_deadline_and_burns_no_cpu_after(sqlite_path, two_tenants, case):
    sql, expected = CASES[case]
    app, manager = stdio_app(sqlite_path, **{"caps.query_timeout_s": TIMEOUT_S})

    async def main():
        async with Client(app) as client:
            started = time.monotonic()
            result = await client.call_tool("execute_query", {"query": sql}, raise_on_error=False)
            took = time.monotonic() - started
            quiet_from = _cpu()
            await anyio.sleep(1.0)
            return result, took, _cpu() - quiet_from

    try:
        result, took, cpu_after = anyio.run(main)
    finally:
        manager.close()
    assert result.is_error and result.content[0].text.startswith(expected)
    assert took < TIMEOUT_S + 1, f"the reply took {took:.2f} s"
    assert cpu_after < 0.25, f"{cpu_after:.2f} CPU seconds were used in the second after the reply"


def test_ordinary_printf_and_text_functions_still_answer(sqlite_path, two_tenants):
    app, manager = stdio_app(sqlite_path, **{"caps.query_timeout_s": TIMEOUT_S})
    sql = (
        "SELECT printf('%-6s|%05.1f|%*d|%.*c', 'ab', 2.25, 4, 7, 3, 'z') AS p, instr('haystack', 'st') AS i, "
        "replace('a-b-c', '-', '+') AS r, trim('..x..', '.') AS t, 'Memgate' LIKE 'mem%' AS l"
    )

    async def main():
        async with Client(app) as client:
            return await client.call_tool("execute_query", {"query": sql})

    try:
        text = anyio.run(main).content[0].text
    finally:
        manager.close()
    assert text.splitlines()[1:] == [
        "| p | i | r | t | l |",
        "|---|---|---|---|---|",
        "| ab    \\|002.3\\|   7\\|zzz | 4 | a+b+c | x | 1 |",
    ]


# -- memory: rows are reduced as they are read -----------------------------------------

_ROWS, _VALUE_CHARS = 150, 1_000_000  # 150 MB of values if held whole; each under the 1 MiB limit


def _proc_status(pid: int, key: str) -> int:
    """A figure from /proc/<pid>/status, in bytes (VmRSS: resident now; VmHWM: its peak so far)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {key} in /proc/{pid}/status")


@pytest.fixture
def big_values(backend, sqlite_path, two_tenants):
    with backend.session(ACME) as s, s.transaction():
        for i in range(_ROWS):
            s.insert(
                "entity_memory",
                {
                    "id": f"ent_big_{i:03}",
                    "subject": "big",
                    "predicate": f"p{i}",
                    "content": chr(ord("a") + i % 26) * _VALUE_CHARS,
                },
            )
    return sqlite_path


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT subject, content FROM entity_memory WHERE subject = 'big'",
        "SELECT subject, CAST(content AS BLOB) AS raw FROM entity_memory WHERE subject = 'big'",
    ],
)
def test_reading_big_values_keeps_the_servers_memory_growth_under_100_mb(big_values, sql, tmp_path):
    """A real `memgate serve` over stdio: its peak resident memory (VmHWM) during the call, over what it
    held after a first small call, is this query's own growth."""
    raw = RawStdio(
        ["--db", str(big_values), "serve", "--tenant", "acme"],
        tmp_path,
        "legacy",
        env={"MEMGATE_CAPS__QUERY_TIMEOUT_S": "60"},
    )
    try:
        raw.open_session()
        warm = raw.request(
            "tools/call",
            {
                "name": "execute_query",  # imports, pool, catalog
                "arguments": {"query": "SELECT id FROM entity_memory", "max_rows": 1},
            },
        )
        assert not warm["result"]["isError"], warm
        before = _proc_status(raw.proc.pid, "VmRSS")
        answer = raw.request("tools/call", {"name": "execute_query", "arguments": {"query": sql, "max_rows": 500}})
        growth = _proc_status(raw.proc.pid, "VmHWM") - before
    finally:
        raw.close()
    assert not answer["result"]["isError"], answer
    lines = answer["result"]["content"][0]["text"].splitlines()
    assert lines[0].startswith(f"rows: {_ROWS} ") and len(lines) == 3 + _ROWS, lines[0]
    assert growth < 100 * 1024 * 1024, f"RSS grew by {growth / 2**20:.0f} MiB"
    assert lines[3] in ("| big | " + "a" * 499 + "… |", "| big | <binary 1000000 bytes> |")
