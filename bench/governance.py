"""Governance overhead: a tool call through the whole path vs the bare manager method, interleaved.

    python3 -m bench.governance [--calls 300]

The full path is the real FastMCP server through an in-process fastmcp.Client: the
provider's row read, the dispatcher's re-read and checks, argument validation, the
method in a worker thread, the call-log row. The bare path is the same MemoryManager
method on the same database, called directly. Calls alternate full/bare (and swap
which goes first every round) so a busy neighbour slows both alike. A third line, the
protocol floor, is a FastMCP tool that returns a constant through the same client: the
cost of MCP itself, which no memgate change can remove.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import machine, markdown_table, report, summary_ms
from .servers import demo_database, in_process_app

ACME_JANE: dict[str, Any] = dict(tenant="acme", user="jane", agent="research-assistant")
#: tool -> (arguments, the bare manager call with the same arguments)
CALLS = {
    "lookup_entity": (
        {"subject": "model:helios-rag", "predicate": "beir_ndcg10"},
        lambda m, who: m.lookup_entity(who, "model:helios-rag", "beir_ndcg10"),
    ),
    "search_memory": (
        {"query": "Helios evaluation qrels"},
        lambda m, who: m.search_memory(who, "Helios evaluation qrels"),
    ),
    "execute_query": (
        {"query": "SELECT subject, predicate, content FROM entity_memory ORDER BY subject"},
        lambda m, who: m.execute_query(who, "SELECT subject, predicate, content FROM entity_memory ORDER BY subject"),
    ),
}
#: the issue's targets: full/bare ratio for these two, absolute overhead for lookup_entity
RATIO_TARGET = {"search_memory": 1.3, "execute_query": 1.3}
OVERHEAD_TARGET_MS = {"lookup_entity": 2.0}


def _floor_server():
    from fastmcp import FastMCP

    floor = FastMCP("floor")

    @floor.tool
    async def constant(text: str) -> str:
        return text

    return floor


class _Timings:
    """Wall-clock and process CPU milliseconds of each call: on a shared machine a thread hop can wait a
    whole time slice, so wall time measures the neighbours too; the CPU this process spent does not."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    async def time(self, call) -> None:
        w, c = time.perf_counter(), time.process_time()
        await call()
        self.cpu.append((time.process_time() - c) * 1000)
        self.wall.append((time.perf_counter() - w) * 1000)

    def summary(self) -> dict:
        return {"wall": summary_ms(self.wall), "cpu": summary_ms(self.cpu)}


async def measure(db: Path, calls: int) -> dict:
    from fastmcp import Client

    from memgate.manager import Identity

    app, manager = in_process_app(db, **ACME_JANE)
    who = Identity(principal="bench", **ACME_JANE)
    out: dict = {"tools": {}}
    try:
        async with Client(app) as client, Client(_floor_server()) as floor:
            protocol = _Timings()
            for _ in range(calls):
                await protocol.time(lambda: floor.call_tool("constant", {"text": "x"}))
            out["protocol_floor"] = protocol.summary()
            for name, (arguments, bare_call) in CALLS.items():
                await client.call_tool(name, arguments)  # warm: first list, caches, page cache
                bare_call(manager, who)
                full, bare = _Timings(), _Timings()

                async def full_call():
                    await client.call_tool(name, arguments)

                async def bare_method():
                    bare_call(manager, who)

                for i in range(calls):
                    for timings, call in ((full, full_call), (bare, bare_method))[:: 1 if i % 2 == 0 else -1]:
                        await timings.time(call)
                out["tools"][name] = _row(name, full.summary(), bare.summary(), out["protocol_floor"])
    finally:
        manager.close()
    return out


def _row(name: str, full: dict, bare: dict, floor: dict) -> dict:
    row: dict = {"full": full, "bare": bare}
    for clock in ("wall", "cpu"):
        f, b = full[clock]["p50_ms"], bare[clock]["p50_ms"]
        row[clock] = {
            "overhead_p50_ms": round(f - b, 2),
            "ratio_p50": round(f / b, 2) if b else None,
            "beyond_protocol_p50_ms": round(f - b - floor[clock]["p50_ms"], 2),
        }
        if name in RATIO_TARGET:
            row[clock]["met"] = row[clock]["ratio_p50"] <= RATIO_TARGET[name]
        if name in OVERHEAD_TARGET_MS:
            row[clock]["met"] = row[clock]["overhead_p50_ms"] <= OVERHEAD_TARGET_MS[name]
    row["target"] = (
        f"<= {RATIO_TARGET[name]}x" if name in RATIO_TARGET else f"<= {OVERHEAD_TARGET_MS[name]} ms overhead"
    )
    return row


def table(data: dict) -> str:
    def pair(d):
        return f"{d['p50_ms']} / {d['p95_ms']}"

    def verdict(r, clock):
        return "met" if r[clock]["met"] else "missed"

    rows = []
    for name, r in data["tools"].items():
        rows.append(
            [
                name,
                pair(r["bare"]["wall"]),
                pair(r["full"]["wall"]),
                r["wall"]["overhead_p50_ms"],
                f"{r['wall']['ratio_p50']}x",
                r["bare"]["cpu"]["p50_ms"],
                r["full"]["cpu"]["p50_ms"],
                r["cpu"]["overhead_p50_ms"],
                r["cpu"]["beyond_protocol_p50_ms"],
                f"{r['cpu']['ratio_p50']}x",
                f"{r['target']}: wall {verdict(r, 'wall')}, CPU {verdict(r, 'cpu')}",
            ]
        )
    floor = data["protocol_floor"]
    rows.append(
        [
            "(protocol floor: a constant tool)",
            "—",
            pair(floor["wall"]),
            "—",
            "—",
            "—",
            floor["cpu"]["p50_ms"],
            "—",
            "—",
            "—",
            "—",
        ]
    )
    return markdown_table(
        [
            "tool",
            "bare wall p50 / p95 ms",
            "full wall p50 / p95 ms",
            "wall overhead p50 ms",
            "full / bare (wall)",
            "bare CPU p50 ms",
            "full CPU p50 ms",
            "CPU overhead p50 ms",
            "of which not MCP itself",
            "full / bare (CPU)",
            "target",
        ],
        rows,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.governance", description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300, help="calls per tool and path (default 300)")
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    info = machine()
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        db = Path(tmp) / "governance.db"
        demo_database(db).close()
        data = asyncio.run(measure(db, args.calls))
    data.update(machine=info, calls_per_path=args.calls, database="the demo data (acme, globex), SQLite")
    report(
        "governance",
        "Governance overhead (in-process fastmcp.Client vs the bare manager method)",
        data,
        table(data),
        results=args.results,
        started=started,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
