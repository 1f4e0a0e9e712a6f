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

from .common import machine, markdown_table, report, summary_ms
from .servers import demo_database, in_process_app

ACME_JANE = dict(tenant="acme", user="jane", agent="research-assistant")
#: tool -> (arguments, the bare manager call with the same arguments)
CALLS = {
    "lookup_entity": ({"subject": "model:helios-rag", "predicate": "beir_ndcg10"},
                      lambda m, who: m.lookup_entity(who, "model:helios-rag", "beir_ndcg10")),
    "search_memory": ({"query": "Helios evaluation qrels"},
                      lambda m, who: m.search_memory(who, "Helios evaluation qrels")),
    "execute_query": ({"query": "SELECT subject, predicate, content FROM entity_memory ORDER BY subject"},
                      lambda m, who: m.execute_query(
                          who, "SELECT subject, predicate, content FROM entity_memory ORDER BY subject")),
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


async def measure(db: Path, calls: int) -> dict:
    from fastmcp import Client

    from memgate.manager import Identity
    app, manager = in_process_app(db, **ACME_JANE)
    who = Identity(principal="bench", **ACME_JANE)
    out: dict = {"tools": {}}
    try:
        async with Client(app) as client, Client(_floor_server()) as floor:
            floor_ms = []
            for _ in range(calls):
                t0 = time.perf_counter()
                await floor.call_tool("constant", {"text": "x"})
                floor_ms.append((time.perf_counter() - t0) * 1000)
            out["protocol_floor"] = summary_ms(floor_ms)
            for name, (arguments, bare_call) in CALLS.items():
                await client.call_tool(name, arguments)  # warm: first list, caches, page cache
                bare_call(manager, who)
                full, bare = [], []
                for i in range(calls):
                    for leg in ((0, 1) if i % 2 == 0 else (1, 0)):
                        t0 = time.perf_counter()
                        if leg == 0:
                            await client.call_tool(name, arguments)
                            full.append((time.perf_counter() - t0) * 1000)
                        else:
                            bare_call(manager, who)
                            bare.append((time.perf_counter() - t0) * 1000)
                f, b = summary_ms(full), summary_ms(bare)
                row = {"bare": b, "full": f, "overhead_p50_ms": round(f["p50_ms"] - b["p50_ms"], 2),
                       "ratio_p50": round(f["p50_ms"] / b["p50_ms"], 2)}
                if name in RATIO_TARGET:
                    row["target"] = f"<= {RATIO_TARGET[name]}x"
                    row["met"] = row["ratio_p50"] <= RATIO_TARGET[name]
                if name in OVERHEAD_TARGET_MS:
                    row["target"] = f"<= {OVERHEAD_TARGET_MS[name]} ms overhead"
                    row["met"] = row["overhead_p50_ms"] <= OVERHEAD_TARGET_MS[name]
                out["tools"][name] = row
    finally:
        manager.close()
    floor_p50 = out["protocol_floor"]["p50_ms"]
    for row in out["tools"].values():
        row["overhead_beyond_protocol_p50_ms"] = round(row["overhead_p50_ms"] - floor_p50, 2)
    return out


def table(data: dict) -> str:
    rows = []
    for name, r in data["tools"].items():
        rows.append([name, f"{r['bare']['p50_ms']} / {r['bare']['p95_ms']}", f"{r['full']['p50_ms']} / "
                     f"{r['full']['p95_ms']}", r["overhead_p50_ms"], r["overhead_beyond_protocol_p50_ms"],
                     f"{r['ratio_p50']}x",
                     f"{r['target']}: {'met' if r['met'] else 'missed'}"])
    floor = data["protocol_floor"]
    rows.append(["(protocol floor: a constant tool)", "—", f"{floor['p50_ms']} / {floor['p95_ms']}", "—", "—", "—",
                 "—"])
    return markdown_table(["tool", "bare p50 / p95 ms", "full path p50 / p95 ms", "overhead p50 ms",
                           "of which not MCP itself", "full / bare", "target"], rows)


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
    report("governance", "Governance overhead (in-process fastmcp.Client vs the bare manager method)", data,
           table(data), results=args.results, started=started)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
