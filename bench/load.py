"""Server throughput under load: a load generator in its own processes, sustained per level.

    python3 -m bench.load [--seconds 4] [--rounds 3] [--levels 1,8,32,128] [--generators 2] [--workers 1,2]

A real `memgate serve --transport http` subprocess (with --workers W) on 127.0.0.1 checks RS256
JWTs signed here. The load comes from G generator processes (multiprocessing, spawn), each an
asyncio loop of raw Streamable HTTP posts in the stateless 2026-07-28 era, with tokens signed before
the clock starts, so no call pays a session set-up or a signature: each level keeps C calls in
flight (split over the generators) for a fixed time, round-robin over four tools, and counts
calls/s, p50/p95/p99 and errors. The server's CPU seconds (its process and its workers, from
/proc) are read before and after each level, so CPU per call is a figure of the server alone
that holds on a shared machine where wall-clock throughput does not. The levels take turns:
each round runs every level for --seconds, and a level's figures are the sum of its rounds, so
a neighbour's burst on a shared machine falls on every level alike instead of on whichever
level ran then. Session set-up (a legacy-era initialize and its notification) is timed on its
own line.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import tempfile
import time
from pathlib import Path

from .common import markdown_table, percentile, report
from .latency import TOOLS, _keys, token
from .servers import child_pids, demo_database, serve_http

LEVELS = (1, 8, 32, 128)
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
_TICKS = os.sysconf("SC_CLK_TCK")


def _body(name: str, arguments: dict, call_id: int) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": call_id,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientInfo": {"name": "bench.load", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }


async def _generate(url: str, tokens: list[str], in_flight: int, seconds: float, offset: int) -> dict:
    import httpx2 as httpx

    names = list(TOOLS)
    latencies: list[float] = []
    errors: list[str] = []
    limits = httpx.Limits(max_connections=in_flight, max_keepalive_connections=in_flight)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        await client.get(url.removesuffix("/mcp") + "/health")  # connect and import before the clock starts
        deadline = time.monotonic() + seconds

        async def worker(k: int) -> None:
            i = k
            while time.monotonic() < deadline:
                name = names[(offset + i) % len(names)]
                headers = {
                    "Authorization": f"Bearer {tokens[k % len(tokens)]}",
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                    "MCP-Protocol-Version": MODERN,
                    "Mcp-Method": "tools/call",
                    "Mcp-Name": name,
                }
                started = time.perf_counter()
                try:
                    response = await client.post(url, headers=headers, json=_body(name, TOOLS[name], i))
                    if response.status_code != 200 or '"isError":true' in response.text:
                        errors.append(f"{name}: HTTP {response.status_code} {response.text[:120]}")
                except Exception as exc:  # counted, not retried: a benchmark reports what happened
                    errors.append(f"{name}: {type(exc).__name__}: {exc}"[:160])
                latencies.append((time.perf_counter() - started) * 1000)
                i += in_flight

        cpu0, began = time.process_time(), time.time()
        await asyncio.gather(*(worker(k) for k in range(in_flight)))
        cpu, ended = time.process_time() - cpu0, time.time()
    return {"latencies": latencies, "errors": errors, "client_cpu_s": cpu, "began": began, "ended": ended}


def _generator_process(args: tuple) -> dict:
    return asyncio.run(_generate(*args))


def _server_cpu_s(pid: int) -> float:
    """utime + stime of the server and every live process under it (uvicorn's workers)."""
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / _TICKS
            todo += child_pids(p)
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def level(url: str, pid: int, tokens: list[str], in_flight: int, seconds: float, generators: int) -> dict:
    """One turn of one level: its raw latencies, errors, wall seconds and the server's CPU seconds."""
    shares = [in_flight // generators + (1 if g < in_flight % generators else 0) for g in range(generators)]
    jobs = [(url, tokens, n, seconds, g) for g, n in enumerate(shares) if n]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(len(jobs)) as pool:
        cpu0 = _server_cpu_s(pid)
        parts = pool.map(_generator_process, jobs)
        cpu = _server_cpu_s(pid) - cpu0
    return {
        "in_flight": in_flight,
        # the generators' own clocks: from the first start to the last end, without process start-up
        "wall_s": max(p["ended"] for p in parts) - min(p["began"] for p in parts),
        "server_cpu_s": cpu,
        "client_cpu_s": sum(p["client_cpu_s"] for p in parts),
        "latencies": [t for p in parts for t in p["latencies"]],
        "errors": [e for p in parts for e in p["errors"]],
    }


def level_figures(turns: list[dict]) -> dict:
    """A level's figures over all its turns."""
    latencies = sorted(t for turn in turns for t in turn["latencies"])
    errors = [e for turn in turns for e in turn["errors"]]
    calls = len(latencies)
    per_turn = [len(t["latencies"]) / t["wall_s"] for t in turns]

    def per_call(key: str) -> float | None:
        return round(sum(t[key] for t in turns) * 1000 / calls, 2) if calls else None

    return {
        "in_flight": turns[0]["in_flight"],
        "turns": len(turns),
        "calls": calls,
        "errors": len(errors),
        "error_samples": errors[:3],
        "calls_per_s": round(calls / sum(t["wall_s"] for t in turns), 1),
        "calls_per_s_turns": [round(x, 1) for x in per_turn],
        "p50_ms": round(percentile(latencies, 50), 1) if calls else None,
        "p95_ms": round(percentile(latencies, 95), 1) if calls else None,
        "p99_ms": round(percentile(latencies, 99), 1) if calls else None,
        "server_cpu_ms_per_call": per_call("server_cpu_s"),
        "client_cpu_ms_per_call": per_call("client_cpu_s"),
    }


def levels_in_turns(
    url: str, pid: int, tokens: list[str], levels: tuple[int, ...], seconds: float, rounds: int, generators: int
) -> list[dict]:
    """Every level once per round, the rounds one after another; each level summed over its rounds."""
    turns: dict[int, list[dict]] = {c: [] for c in levels}
    for _ in range(rounds):
        for c in levels:
            turns[c].append(level(url, pid, tokens, c, seconds, generators))
    return [level_figures(turns[c]) for c in levels]


def session_setup(url: str, private_pem: str, n: int = 20) -> dict:
    """A legacy-era client's handshake (initialize + notifications/initialized), n times in turn."""
    import httpx2 as httpx

    times = []
    with httpx.Client(timeout=30) as client:
        for k in range(n):
            headers = {
                "Authorization": f"Bearer {token(private_pem, f'setup{k}@acme')}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            }
            started = time.perf_counter()
            init = {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}},
            }
            first = client.post(url, headers=headers, json=init)
            session = first.headers.get("mcp-session-id")
            more = {**headers, "MCP-Protocol-Version": LEGACY, **({"Mcp-Session-Id": session} if session else {})}
            client.post(url, headers=more, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
            times.append((time.perf_counter() - started) * 1000)
            if session:
                client.request("DELETE", url, headers=more)
    return {"n": n, "p50_ms": round(percentile(times, 50), 1), "p95_ms": round(percentile(times, 95), 1)}


def run(
    seconds: float, rounds: int, levels: tuple[int, ...], generators: int, workers: tuple[int, ...], folder: Path
) -> dict:
    private, public = _keys(folder)
    db = folder / "load.db"
    demo_database(db)
    tokens = [token(private, f"load{k}@acme") for k in range(max(levels))]
    out: dict = {"seconds_per_turn": seconds, "rounds": rounds, "generators": generators, "runs": []}
    for w in workers:
        with serve_http(db, public, args=["--workers", str(w)]) as (url, pid):
            level(url, pid, tokens, 1, min(seconds, 1.0), 1)  # warm: caches, page cache, every worker's pool
            rows = levels_in_turns(url, pid, tokens, levels, seconds, rounds, generators)
            out["runs"].append({"workers": w, "levels": rows, "session_setup": session_setup(url, private)})
    return out


def table(data: dict) -> str:
    header = [
        "workers",
        "in flight",
        "calls",
        "errors",
        "calls/s",
        "calls/s each round",
        "of the best level",
        "p50 / p95 / p99 ms",
        "server CPU ms/call",
        "CPU/call against 1 in flight",
    ]
    rows = []
    for run_ in data["runs"]:
        best = max(lv["calls_per_s"] for lv in run_["levels"])
        first = run_["levels"][0]["server_cpu_ms_per_call"]
        for lv in run_["levels"]:
            cpu = lv["server_cpu_ms_per_call"]
            rows.append(
                [
                    run_["workers"],
                    lv["in_flight"],
                    lv["calls"],
                    lv["errors"],
                    lv["calls_per_s"],
                    " / ".join(str(x) for x in lv["calls_per_s_turns"]),
                    f"{lv['calls_per_s'] / best:.2f}x",
                    f"{lv['p50_ms']} / {lv['p95_ms']} / {lv['p99_ms']}",
                    cpu,
                    f"{cpu / first:.2f}x" if cpu and first else "",
                ]
            )
    setup = "; ".join(
        f"{r['workers']} worker(s): {r['session_setup']['p50_ms']} ms p50, {r['session_setup']['p95_ms']} ms p95"
        for r in data["runs"]
    )
    return (
        markdown_table(header, rows)
        + f"\n\nLegacy-era session set-up (initialize + initialized), not in the figures above: {setup}."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="how long each level runs per round (default 4)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; each runs every level once (default 3)")
    parser.add_argument("--levels", default=",".join(map(str, LEVELS)), help="calls in flight per level")
    parser.add_argument("--generators", type=int, default=2, help="load generator processes (default 2)")
    parser.add_argument("--workers", default="1,2", help="server worker counts to compare (default 1,2)")
    parser.add_argument("--results", type=Path, help="where to write load.json (default bench/results/)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    levels = tuple(int(x) for x in args.levels.split(","))
    workers = tuple(int(x) for x in args.workers.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        data = run(args.seconds, args.rounds, levels, args.generators, workers, Path(tmp))
    report("load", "Load", data, table(data), results=args.results, started=started)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
