"""Per-tool latency: in-process, and over Streamable HTTP with 1, 8 and 32 concurrent clients.

    python3 -m bench.latency [--calls 60] [--http-calls 96]

In-process: the real FastMCP server through an in-process fastmcp.Client, each tool
called --calls times in turn (p50/p95 per tool). HTTP: a real `memgate serve --transport
http` subprocess on 127.0.0.1, checking RS256 JWTs signed here with a key made for the
run; C concurrent fastmcp.Clients (C = 1, 8, 32), each with its own token, share
--http-calls calls per level round-robin over the tools; errors are counted, not retried.
Clients and server share the machine's cores, so the HTTP figures include the clients' own CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from .common import machine, markdown_table, report, summary_ms
from .servers import AUDIENCE, ISSUER, demo_database, in_process_app, serve_http

TOOLS = {
    "lookup_entity": {"subject": "model:helios-rag", "predicate": "beir_ndcg10"},
    "search_memory": {"query": "Helios evaluation qrels"},
    "execute_query": {"query": "SELECT subject, predicate, content FROM entity_memory ORDER BY subject"},
    "memory": {"command": "view", "path": "/memories"},
}
LEVELS = (1, 8, 32)


async def in_process(db: Path, calls: int) -> dict:
    from fastmcp import Client

    app, manager = in_process_app(db)
    out = {}
    try:
        async with Client(app) as client:
            for name, args in TOOLS.items():
                await client.call_tool(name, args)  # warm
                times = []
                for _ in range(calls):
                    t = time.perf_counter()
                    await client.call_tool(name, args)
                    times.append((time.perf_counter() - t) * 1000)
                out[name] = summary_ms(times)
    finally:
        manager.close()
    return out


def _keys(folder: Path) -> tuple[str, Path]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = folder / "bench_public.pem"
    public.write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    return private, public


def token(private_pem: str, sub: str, tenant: str = "acme", agent: str = "research-assistant") -> str:
    import jwt

    now = int(time.time())
    return jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "tenant": tenant, "agent": agent, "iat": now, "exp": now + 3600},
        private_pem,
        algorithm="RS256",
    )


async def http_level(url: str, private_pem: str, clients: int, total: int) -> dict:
    from fastmcp import Client

    names = list(TOOLS)
    per_tool: dict[str, list[float]] = {n: [] for n in names}
    errors: list[str] = []
    counter = iter(range(total))

    async def one_client(k: int) -> None:
        async with Client(url, auth=token(private_pem, f"bench{k}@acme")) as c:
            for i in counter:
                name = names[i % len(names)]
                t = time.perf_counter()
                try:
                    r = await c.call_tool(name, TOOLS[name], raise_on_error=False)
                    if r.is_error:
                        errors.append(f"{name}: {r.content[0].text[:120]}")
                except Exception as exc:
                    errors.append(f"{name}: {type(exc).__name__}: {exc}"[:160])
                per_tool[name].append((time.perf_counter() - t) * 1000)

    started = time.perf_counter()
    results = await asyncio.gather(*(one_client(k) for k in range(clients)), return_exceptions=True)
    wall = time.perf_counter() - started
    errors += [f"client: {type(r).__name__}: {r}"[:160] for r in results if isinstance(r, BaseException)]
    every = [t for ts in per_tool.values() for t in ts]
    return {
        "clients": clients,
        "calls": len(every),
        "errors": len(errors),
        "error_samples": errors[:5],
        "calls_per_s": round(len(every) / wall, 1),
        "all": summary_ms(every) if every else None,
        "per_tool": {n: summary_ms(ts) for n, ts in per_tool.items() if ts},
    }


async def over_http(db: Path, folder: Path, total: int, levels: tuple[int, ...] = LEVELS) -> list[dict]:
    private, public = _keys(folder)
    with serve_http(db, public) as (url, _pid):
        await http_level(url, private, 1, len(TOOLS))  # warm the server
        return [await http_level(url, private, c, max(total, c)) for c in levels]


def table(data: dict) -> str:
    inproc = markdown_table(
        ["tool (in-process)", "p50 ms", "p95 ms"],
        [[n, r["p50_ms"], r["p95_ms"]] for n, r in data["in_process"].items()],
    )
    header = ["HTTP clients", "calls", "errors", "calls/s", "all p50 / p95 ms", *[f"{n} p50 / p95" for n in TOOLS]]
    rows = []
    for lv in data["http"]:
        rows.append(
            [
                lv["clients"],
                lv["calls"],
                lv["errors"],
                lv["calls_per_s"],
                f"{lv['all']['p50_ms']} / {lv['all']['p95_ms']}" if lv["all"] else "—",
                *[
                    f"{lv['per_tool'][n]['p50_ms']} / {lv['per_tool'][n]['p95_ms']}" if n in lv["per_tool"] else "—"
                    for n in TOOLS
                ],
            ]
        )
    return inproc + "\n\n" + markdown_table(header, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=60, help="in-process calls per tool (default 60)")
    parser.add_argument("--http-calls", type=int, default=96, help="HTTP calls per concurrency level (default 96)")
    parser.add_argument(
        "--levels", type=int, nargs="+", default=list(LEVELS), help="concurrent HTTP clients per level (default 1 8 32)"
    )
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    started, info = time.perf_counter(), machine()
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        db = Path(tmp) / "latency.db"
        demo_database(db).close()
        data: dict[str, Any] = {"machine": info, "in_process": asyncio.run(in_process(db, args.calls))}
        data["http"] = asyncio.run(over_http(db, Path(tmp), args.http_calls, tuple(args.levels)))
    data["database"] = "the demo data (acme, globex), SQLite; HTTP: memgate serve subprocess, RS256 JWTs"
    report(
        "latency",
        "Per-tool latency: in-process, and Streamable HTTP on 127.0.0.1",
        data,
        table(data),
        results=args.results,
        started=started,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
