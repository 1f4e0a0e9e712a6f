"""Server memory: the peak RSS of a real `memgate serve` process at 100k chunks after N searches.

    python3 -m bench.rss [--chunks 100000] [--searches 30] [--baseline-python OTHER/.venv/bin/python]

A SQLite file holds one tenant with --chunks generated chunks (bench/corpus.py: random
unit-vector embeddings of the default embedder's size) and its default tools. A real
`memgate serve --tenant bench` stdio subprocess serves it to a fastmcp.Client; after the
first tools/list and after every search_memory call the server's /proc/PID/status is
read: VmRSS now, VmHWM the peak so far. After the last search the server's mappings are
sorted by kind, and a fresh process runs the server's parts in order to say what each adds
(bench/rss_breakdown.py). --baseline-python serves the same file with another tree's
memgate (e.g. a `git worktree` of main with its own venv) in the same run, for a ratio.
Linux only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from .common import machine, markdown_table, report
from .corpus import build_chunks, queries, vocabulary
from .rss_breakdown import mappings, parts_of
from .servers import child_pids, server_env

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


def _transport(db: Path, python: str):
    from fastmcp.client.transports import StdioTransport

    return StdioTransport(
        command=python,
        args=["-m", "memgate", "--db", str(db), "serve", "--tenant", "bench", "--user", "bench"],
        env=server_env(MEMGATE_SERVER__LOG_LEVEL="WARNING"),
        log_file=db.with_suffix(".log"),
    )


async def measure(db: Path, searches: int, python: str = sys.executable) -> dict:
    from fastmcp import Client

    transport = _transport(db, python)
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
        where = mappings(pid)
    peak = samples[-1]["VmHWM"] if samples else start["VmHWM"]
    return {"after_start": start, "samples": samples, "peak_mb": peak, "mappings_mb": where}


def measure_tree(pristine: Path, searches: int, python: str) -> dict:
    """The server run and the parts breakdown of one tree's memgate, each on its own copy of the file."""
    served, parted = pristine.with_name(f"served-{os.getpid()}.db"), pristine.with_name(f"parts-{os.getpid()}.db")
    try:
        shutil.copyfile(pristine, served)
        data = asyncio.run(measure(served, searches, python))
        shutil.copyfile(pristine, parted)
        data["parts"] = parts_of(parted, searches, python)
    finally:
        for path in (served, parted):
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
    return data


def _row(label: str, d: dict) -> list:
    last = d["samples"][-1]
    met = "met" if d["peak_mb"] <= TARGET_MB else "missed"
    return [
        label,
        len(d["samples"]),
        d["after_start"]["VmRSS"],
        last["VmRSS"],
        d["peak_mb"],
        f"<= {TARGET_MB} MB: {met}",
    ]


def table(d: dict) -> str:
    rows = [_row("this tree", d)]
    if "baseline" in d:
        rows.append(_row("baseline", d["baseline"]))
        ratio = round(d["peak_mb"] / d["baseline"]["peak_mb"], 2)
        rows.append(["this tree / baseline (peak)", "", "", "", f"{ratio}x", ""])
    return markdown_table(
        [
            f"{d['chunks']:,} chunks",
            "searches",
            "RSS after start MB",
            "RSS after searches MB",
            "peak (VmHWM) MB",
            "target",
        ],
        rows,
    )


def summary(d: dict) -> str:
    """Where the server's RSS sits (its mappings), and what each part adds in a fresh process."""
    runs = [("this tree", d)] + ([("baseline", d["baseline"])] if "baseline" in d else [])
    names = [label for label, _ in runs]
    where = markdown_table(
        ["the server's RSS after the searches, by mapping", *(f"{n} MB" for n in names)],
        [[kind, *(r["mappings_mb"].get(kind, 0.0) for _, r in runs)] for kind in d["mappings_mb"]],
    )
    parts = [r["parts"] for _, r in runs]
    rows = [[step["part"], *(p["steps"][i]["mb"] for p in parts)] for i, step in enumerate(parts[0]["steps"])]
    held = [
        ("of which the vector matrix (int8 codes and per-row columns)", "vector_matrix_mb"),
        ("of which SQLite's heap (page caches, schemas, statements)", "sqlite_heap_mb"),
        ("SQLite connections idle in the pools", "sqlite_idle_connections"),
        ("RSS at the end", "rss_mb"),
    ]
    rows += [[f"*{label}*", *(p["held"][key] for p in parts)] for label, key in held]
    steps = markdown_table(["what each part adds, in serve order (a fresh process)", *(f"{n} MB" for n in names)], rows)
    return f"{where}\n\n{steps}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.rss", description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--searches", type=int, default=30)
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    parser.add_argument("--baseline-python", help="also serve the file with this interpreter's memgate, for a ratio")
    args = parser.parse_args(argv)
    started, info = time.perf_counter(), machine()
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        db = Path(tmp) / "rss.db"
        t0 = time.perf_counter()
        embedder = build_database(db, args.chunks)
        build_s = round(time.perf_counter() - t0, 1)
        data = measure_tree(db, args.searches, sys.executable)
        if args.baseline_python:
            data["baseline"] = measure_tree(db, args.searches, args.baseline_python)
    data.update(machine=info, chunks=args.chunks, embedder=embedder, build_seconds=build_s, target_mb=TARGET_MB)
    report(
        "rss",
        "Server memory (memgate serve over stdio, one tenant)",
        data,
        f"{table(data)}\n\n{summary(data)}",
        results=args.results,
        started=started,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
