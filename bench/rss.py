"""Server memory: the peak RSS of a real `memgate serve` process at 100k chunks after N searches.

    python3 -m bench.rss [--chunks 100000] [--searches 30]

A SQLite file holds one tenant with --chunks generated chunks (bench/corpus.py: random
unit-vector embeddings of the default embedder's size) and its default tools. A real
`memgate serve --tenant bench` stdio subprocess serves it to a fastmcp.Client; after the
first tools/list and after every search_memory call the server's /proc/PID/status is
read: VmRSS now, VmHWM the peak so far. Linux only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

from .common import machine, markdown_table, report
from .corpus import build_chunks, queries, vocabulary
from .servers import child_pids, stdio_transport

TARGET_MB = 250


def proc_status_mb(pid: int) -> dict[str, float]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


def build_database(path: Path, chunks: int) -> str:
    from memgate.manager import (
        DatabaseSettings,
        Identity,
        MemoryManager,
        default_embedder,
        load_tool_definitions,
        open_backend,
    )

    embedder = default_embedder()
    manager = MemoryManager(open_backend(DatabaseSettings(path=path)), embedder=embedder)
    who = Identity(tenant="bench", user="bench", principal="bench")
    manager.seed_tools(Identity(tenant="bench", principal="bench"), load_tool_definitions())
    dim = int(embedder.embed(["probe"]).shape[1])
    build_chunks(manager.backend, who, chunks, vocabulary(), model=embedder.name, seed=1, dim=dim)
    manager.close()
    return embedder.name


async def measure(db: Path, searches: int) -> dict:
    from fastmcp import Client

    transport = stdio_transport(db, db.with_suffix(".log"), tenant="bench", user="bench")
    before = set(child_pids(os.getpid()))
    samples = []
    async with Client(transport) as client:
        await client.list_tools()
        [pid] = [p for p in child_pids(os.getpid()) if p not in before][:1]
        start = proc_status_mb(pid)
        for i, q in enumerate(queries(vocabulary(), searches, seed=11)):
            t = time.perf_counter()
            await client.call_tool("search_memory", {"query": q})
            samples.append({"search": i + 1, "ms": round((time.perf_counter() - t) * 1000, 1), **proc_status_mb(pid)})
    return {"after_start": start, "samples": samples, "peak_mb": samples[-1]["VmHWM"] if samples else start["VmHWM"]}


def table(d: dict) -> str:
    last = d["samples"][-1]
    return markdown_table(
        ["chunks", "searches", "RSS after start MB", "RSS after searches MB", "peak (VmHWM) MB", "target"],
        [
            [
                f"{d['chunks']:,}",
                len(d["samples"]),
                d["after_start"]["VmRSS"],
                last["VmRSS"],
                d["peak_mb"],
                f"<= {TARGET_MB} MB: {'met' if d['peak_mb'] <= TARGET_MB else 'missed'}",
            ]
        ],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.rss", description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--searches", type=int, default=30)
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    started, info = time.perf_counter(), machine()
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        db = Path(tmp) / "rss.db"
        t0 = time.perf_counter()
        embedder = build_database(db, args.chunks)
        build_s = round(time.perf_counter() - t0, 1)
        data = asyncio.run(measure(db, args.searches))
    data.update(machine=info, chunks=args.chunks, embedder=embedder, build_seconds=build_s, target_mb=TARGET_MB)
    report(
        "rss",
        "Server memory (memgate serve over stdio, one tenant)",
        data,
        table(data),
        results=args.results,
        started=started,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
