"""What holds a memgate server's RSS: its mappings by kind, and the RSS each part adds in serve order.

    python3 -m bench.rss_breakdown DB [--searches 30]    # one JSON line: the parts, in a fresh process

`mappings(pid)` sorts a live process's /proc/PID/smaps into kinds (anonymous heap, shared
libraries, the WordLlama weights file, the database file, stacks). `parts` runs in a fresh
process what `memgate serve` runs, in its order (imports, the open manager and app, the o200k
Encoding, WordLlama, the first search with its vector matrix, the rest of the searches), and
reads VmRSS after each: the RSS a part adds is what it holds plus what its passing
allocations left in the heap. bench/rss.py puts both under its table. Linux only.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

__all__ = ["KINDS", "mappings", "parts", "parts_of"]

#: how a mapping's RSS is sorted, first match wins
KINDS = (
    ("WordLlama weights (mapped file)", lambda name: name.endswith(".safetensors")),
    ("database file (mmap)", lambda name: name.endswith((".db", ".db-shm", ".sqlite"))),
    ("shared libraries", lambda name: ".so" in name),
    ("stacks", lambda name: name.startswith("[stack")),
    ("heap: Python objects, numpy arrays, C and Rust allocations", lambda name: name in ("[heap]", "[anon]", "")),
)
_MAPPING = re.compile(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$")


def mappings(pid: int | str = "self") -> dict[str, float]:
    """The process's RSS by kind of mapping, in MB."""
    out: dict[str, float] = {kind: 0.0 for kind, _ in KINDS}
    out["other"] = 0.0
    kind = "other"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        if m := _MAPPING.match(line):
            name = m.group(1).strip() or "[anon]"
            kind = next((k for k, test in KINDS if test(name)), "other")
        elif line.startswith("Rss:"):
            out[kind] += int(line.split()[1]) / 1024
    return {k: round(v, 1) for k, v in out.items()}


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def _sqlite_heap_mb() -> float:
    """SQLite's own heap (page caches, schemas, prepared statements) in this process."""
    try:
        lib = ctypes.CDLL("libsqlite3.so.0")
    except OSError:
        return -1.0
    lib.sqlite3_memory_used.restype = ctypes.c_int64
    return round(lib.sqlite3_memory_used() / 2**20, 1)


def parts(db: Path, searches: int) -> dict:
    """Run the server's parts in order in this process; the RSS each adds, and what some hold."""
    steps: list[dict] = []
    last = _rss_mb()
    steps.append({"part": "Python interpreter", "mb": round(last, 1)})

    def step(name: str) -> None:
        nonlocal last
        now = _rss_mb()
        steps.append({"part": name, "mb": round(now - last, 1)})
        last = now

    import numpy  # noqa: F401

    step("import numpy")
    import sqlglot  # noqa: F401

    step("import sqlglot (execute_query's parser)")
    import memgate.manager as manager_api

    step("import memgate.manager (its other imports)")
    importlib.import_module("fastmcp.server.server")
    step("import FastMCP and the MCP SDK")
    importlib.import_module("fastmcp.server.auth.providers.google")
    step("import FastMCP's token verifiers (memgate.server imports them)")
    from bench.corpus import queries, vocabulary
    from bench.servers import in_process_app

    step("import memgate.server")
    app, manager = in_process_app(db, tenant="bench", user="bench", agent=None)
    step("the open manager and the stdio app")
    prepare = getattr(manager_api, "prepare_server_heap", None)
    if prepare is not None:
        prepare()
    else:  # an older tree: its first count builds the Encoding
        manager_api.count_tokens("")
    step("tiktoken o200k Encoding")
    embedder = manager.embedder
    embedder.embed(["warm"])
    step("WordLlama (tokenizer and weights)")
    who = manager_api.Identity(tenant="bench", user="bench", principal="bench")
    asked = queries(vocabulary(), searches, seed=11)
    manager.search_chunks(who, asked[0])
    step("first search (query embedding, vector matrix, both legs)")
    for q in asked[1:]:
        manager.search_chunks(who, q)
    step(f"{len(asked) - 1} more searches")
    backend = manager.backend
    pools = [getattr(backend, name, None) for name in ("_pool", "_operator_pool")]
    held = {
        "vector_matrix_mb": round(backend.vector_cache.nbytes / 2**20, 1),
        "sqlite_heap_mb": _sqlite_heap_mb(),
        "sqlite_idle_connections": sum(len(p.idle) for p in pools if p is not None),
        "mappings_mb": mappings(),
        "rss_mb": round(_rss_mb(), 1),
    }
    del app
    manager.close()
    return {"steps": steps, "held": held}


def parts_of(db: Path, searches: int, python: str = sys.executable) -> dict:
    """`parts` in a fresh process of `python` (whose memgate may be another tree's)."""
    done = subprocess.run(
        [python, "-m", "bench.rss_breakdown", str(db), "--searches", str(searches)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=Path(__file__).resolve().parent.parent,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench.rss_breakdown failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.rss_breakdown", description=__doc__.split("\n\n")[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--searches", type=int, default=30)
    args = parser.parse_args(argv)
    print(json.dumps(parts(args.db, args.searches)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
