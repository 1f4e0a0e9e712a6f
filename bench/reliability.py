"""Reliability: a cross-tenant soak, kill -9 mid-write and mid-ingest, and a locked database.

    python3 -m bench.reliability [--soak-calls 2000]

- Soak: four callers (two users in each of two tenants, each with its own agent) call
  the tools through the real server (an in-process fastmcp.Client per caller, as several
  stdio servers on one file), four calls at a time in a seeded random mix; after every
  call the result is checked (bench/isolation.py) for any id or marker of another tenant
  or another user.
- kill -9 of a `memgate serve` stdio subprocess while it writes memory files, then a
  restart: PRAGMA integrity_check, every write the call log says succeeded is there whole,
  no file holds a torn write, at most the one call in flight committed without its log row.
- kill -9 of `memgate ingest` mid-folder at several moments: integrity_check, no document
  without all of its chunks, no chunk without its document; a rerun completes the folder.
- A locked database: another process holds BEGIN IMMEDIATE; a write tool gets the generic
  error within the busy timeout, the operator log has an ERROR for the call, a read still
  answers, and once the lock is gone the call log has the write's `error` row and the
  read's `ok` row.

tests/project/test_reliability.py runs a reduced, deterministic form of each in CI.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path
from typing import Any

from .common import machine, markdown_table, report
from .isolation import IsolationChecker, marker
from .servers import child_pids, demo_database, in_process_app, memgate_command, server_env, stdio_transport

#: (tenant, user, agent): two users per tenant, each with an agent of their own
CALLERS = (
    ("acme", "jane", "research-assistant"),
    ("acme", "bob", "analyst-bot"),
    ("globex", "omar", "support-bot"),
    ("globex", "lena", "billing-bot"),
)
GENERIC_ERROR = "The memory service could not complete this call"


# -- the soak --------------------------------------------------------------------------------
def plant_markers(manager) -> IsolationChecker:
    """A user-scoped claim and document per caller carrying its marker; then the checker over every id."""
    from memgate.manager import Identity, now_iso

    for tenant, user, _agent in CALLERS:
        who = Identity(tenant=tenant, user=user, principal="bench")
        mark, now = marker(tenant, user), now_iso()
        with manager.backend.session(who) as s:
            s.insert(
                "entity_memory",
                {
                    "id": f"ent_{tenant}_{user}_marker",
                    "tenant_id": tenant,
                    "user_id": user,
                    "subject": "marker:probe",
                    "predicate": "owner",
                    "content": mark,
                    "confidence": 0.9,
                    "version": 1,
                    "valid_from": now,
                    "created_by": "bench",
                    "created_at": now,
                },
            )
        manager.ingest_text(
            who,
            title=f"probe notes {mark}",
            text=f"Probe notes. The probe marker is {mark}.",
            source_uri=f"marker://{tenant}/{user}",
            collection="demo",
            user_id=user,
        )
    users: dict[str, list[str]] = {}
    for tenant, user, _agent in CALLERS:
        users.setdefault(tenant, []).append(user)
    return IsolationChecker.from_database(manager.backend, users)


def soak_calls(tenant: str, user: str, n: int) -> tuple[str, dict]:
    mark = marker(tenant, user)
    return random.Random(n).choice(
        [
            ("lookup_entity", {"subject": "marker:probe"}),
            ("lookup_entity", {"subject": "model:helios-rag"}),
            ("search_memory", {"query": "probe marker notes"}),
            ("search_memory", {"query": "Helios evaluation"}),
            ("execute_query", {"query": "SELECT id, subject, content FROM entity_memory"}),
            ("execute_query", {"query": "SELECT id, title FROM knowledge_base_document"}),
            (
                "memory_write",
                {"command": "create", "path": f"/memories/notes_{n % 7}.md", "file_text": f"{mark} note {n}"},
            ),
            ("memory", {"command": "view", "path": "/memories"}),
            ("memory", {"command": "view", "path": f"/memories/notes_{n % 7}.md"}),
        ]
    )


async def soak(db: Path, calls: int, seed: int = 1) -> dict:
    from fastmcp import Client

    manager = demo_database(db)
    checker = plant_markers(manager)
    manager.close()
    rng = random.Random(seed)
    out: dict[str, Any] = {"calls": 0, "errors": 0, "errors_by_tool": {}, "violations": [], "own_marker_seen": 0}
    async with AsyncExitStack() as stack:
        clients = []
        for tenant, user, agent in CALLERS:
            app, m = in_process_app(db, tenant, user, agent)
            stack.callback(m.close)
            clients.append(((tenant, user), await stack.enter_async_context(Client(app))))

        async def one(caller, client, n):
            (tenant, user) = caller
            name, args = soak_calls(tenant, user, n)
            result = await client.call_tool(name, args, raise_on_error=False)
            text = "\n".join(getattr(c, "text", "") for c in result.content)
            out["calls"] += 1
            if result.is_error:  # the memory tool answers "already exists" / "does not exist" as errors
                out["errors"] += 1
                out["errors_by_tool"][name] = out["errors_by_tool"].get(name, 0) + 1
            out["own_marker_seen"] += marker(tenant, user) in text
            leaked = checker.foreign(text, tenant, user)
            if leaked:
                out["violations"].append(
                    {"caller": f"{tenant}/{user}", "tool": name, "arguments": args, "foreign": leaked[:5]}
                )

        while out["calls"] < calls:
            batch = [rng.randrange(len(clients)) for _ in range(min(len(clients), calls - out["calls"]))]
            await asyncio.gather(*(one(*clients[k], rng.randrange(10**6)) for k in batch))
    return out


# -- kill -9 ---------------------------------------------------------------------------------
def integrity(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def payload(i: int) -> str:
    return f"write {i}: " + "memory file body; " * 150


async def kill_during_memory_writes(db: Path, writes: int, *, in_flight_s: float = 0.002) -> dict:
    """`writes` memory-file creates through a real stdio server, then one more killed with the server."""
    from fastmcp import Client

    transport = stdio_transport(db, db.with_suffix(".log"), tenant="acme", user="jane", agent="research-assistant")
    before = set(child_pids(os.getpid()))
    client = Client(transport)
    await client.__aenter__()
    try:
        [pid] = [p for p in child_pids(os.getpid()) if p not in before][:1]
        for i in range(writes):
            await client.call_tool(
                "memory_write", {"command": "create", "path": f"/memories/kill_{i}.md", "file_text": payload(i)}
            )
        last = asyncio.ensure_future(
            client.call_tool(
                "memory_write",
                {"command": "create", "path": f"/memories/kill_{writes}.md", "file_text": payload(writes)},
            )
        )
        await asyncio.sleep(in_flight_s)
        os.kill(pid, signal.SIGKILL)
        try:
            await asyncio.wait_for(last, 10)
        except BaseException:
            pass
    finally:
        try:
            await asyncio.wait_for(client.__aexit__(None, None, None), 10)
        except BaseException:
            pass
    return check_memory_writes(db, writes + 1)


def check_memory_writes(db: Path, attempted: int) -> dict:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        files = {
            r["path"]: r["content"]
            for r in conn.execute(
                "SELECT path, content FROM base_memory_file WHERE tenant_id = 'acme' AND path LIKE '/memories/kill_%'"
            )
        }
        logged = set()
        for r in conn.execute(
            "SELECT arguments_json FROM base_mcp_call_log WHERE tenant_id = 'acme' "
            "AND tool_name = 'memory_write' AND status = 'ok'"
        ):
            path = json.loads(r["arguments_json"] or "{}").get("path", "")
            if path.startswith("/memories/kill_"):
                logged.add(path)
    finally:
        conn.close()
    expected = {f"/memories/kill_{i}.md": payload(i) for i in range(attempted)}
    return {
        "integrity_check": check,
        "attempted": attempted,
        "files": len(files),
        "logged_ok": len(logged),
        "logged_but_missing": sorted(logged - set(files)),
        "torn": sorted(p for p, c in files.items() if expected.get(p) != c),
        "committed_without_log_row": sorted(set(files) - logged),
    }


def memory_writes_ok(r: dict) -> bool:
    return (
        r["integrity_check"] == "ok"
        and not r["logged_but_missing"]
        and not r["torn"]
        and len(r["committed_without_log_row"]) <= 1
    )


def check_documents(db: Path) -> dict:
    conn = sqlite3.connect(db)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        docs = conn.execute(
            "SELECT d.id, count(c.id), coalesce(max(c.position), -1) FROM base_knowledge_base_document d "
            "LEFT JOIN base_knowledge_base_chunk c ON c.document_id = d.id GROUP BY d.id"
        ).fetchall()
        orphans = conn.execute(
            "SELECT count(*) FROM base_knowledge_base_chunk c WHERE NOT EXISTS "
            "(SELECT 1 FROM base_knowledge_base_document d WHERE d.id = c.document_id)"
        ).fetchone()[0]
    finally:
        conn.close()
    half = [doc for doc, count, top in docs if count == 0 or count != top + 1]
    return {"integrity_check": check, "documents": len(docs), "half_documents": half, "orphan_chunks": orphans}


def kill_during_ingest(db: Path, folder: Path, delays_s: list[float]) -> dict:
    """`memgate ingest FOLDER` killed after each delay in turn, checked after each; then run to completion."""
    command = [*memgate_command(), "--db", str(db), "ingest", str(folder), "-t", "acme", "--collection", "kill"]
    rounds = []
    for delay in delays_s:
        proc = subprocess.Popen(command, env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        finished = proc.poll() is not None
        if not finished:
            proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        rounds.append({"killed_after_s": delay, "had_finished": finished, **check_documents(db)})
    done = subprocess.run(command, env=server_env(), capture_output=True, text=True, timeout=600)
    final = check_documents(db)
    files = len(list(folder.iterdir()))
    return {"rounds": rounds, "rerun_exit": done.returncode, "final": final, "files": files}


def ingest_ok(r: dict) -> bool:
    every = [*r["rounds"], r["final"]]
    return r["rerun_exit"] == 0 and all(
        x["integrity_check"] == "ok" and not x["half_documents"] and x["orphan_chunks"] == 0 for x in every
    )


# -- a locked database -----------------------------------------------------------------------
_HOLD = (
    "import sqlite3, sys, time\n"
    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "c.execute('BEGIN IMMEDIATE')\n"
    "print('locked', flush=True)\n"
    "time.sleep(float(sys.argv[2]))\n"
)


@contextmanager
def write_lock_held(db: Path, at_most_s: float = 120.0):
    """Another process holding SQLite's write lock (BEGIN IMMEDIATE) until the block ends."""
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(db), str(at_most_s)], stdout=subprocess.PIPE, text=True)
    try:
        if holder.stdout is None or holder.stdout.readline().strip() != "locked":
            raise RuntimeError("the lock holder did not take the write lock")
        yield holder.pid
    finally:
        holder.kill()
        holder.wait(10)


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


async def locked_database(db: Path, busy_timeout_ms: int) -> dict:
    from fastmcp import Client

    overrides: dict[str, Any] = {"database.busy_timeout_ms": busy_timeout_ms}
    app, manager = in_process_app(db, **overrides)
    records = _Records()
    toolbox_log = logging.getLogger("memgate.toolbox")
    toolbox_log.addHandler(records)
    try:
        async with Client(app) as client:
            await client.call_tool("lookup_entity", {"subject": "model:helios-rag"})
            with write_lock_held(db):
                started = time.perf_counter()
                result = await client.call_tool(
                    "memory_write",
                    {"command": "create", "path": "/memories/locked.md", "file_text": "written under a lock"},
                    raise_on_error=False,
                )
                elapsed = time.perf_counter() - started
                # A read still answers under the lock (WAL); its log row waits for the lock to go.
                read = await client.call_tool("lookup_entity", {"subject": "model:helios-rag"}, raise_on_error=False)
            after = await client.call_tool("lookup_entity", {"subject": "model:helios-rag"}, raise_on_error=False)
    finally:
        toolbox_log.removeHandler(records)
        manager.close()
    text = result.content[0].text if result.content else ""
    call_id = (re.search(r"call id ([0-9a-f-]{36})", text) or [None, None])[1]
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT status, error_class FROM base_mcp_call_log WHERE call_id = ?", (call_id,)).fetchone()
        reads_logged = conn.execute(
            "SELECT count(*) FROM base_mcp_call_log WHERE tool_name = 'lookup_entity' AND status = 'ok'"
        ).fetchone()[0]
    finally:
        conn.close()
    return {
        "busy_timeout_ms": busy_timeout_ms,
        "elapsed_s": round(elapsed, 2),
        "is_error": bool(result.is_error),
        "generic_error": text.startswith(GENERIC_ERROR),
        "call_id": call_id,
        "operator_log_error": any(
            r.levelno >= logging.ERROR and call_id and call_id in r.getMessage() for r in records.records
        ),
        "call_log_row": list(row) if row else None,
        "next_call_ok": not after.is_error,
        "read_under_lock_ok": not read.is_error,
        "reads_logged": reads_logged,
        "reads": 3,
    }


def locked_ok(r: dict, margin_s: float) -> bool:
    return (
        r["is_error"]
        and r["generic_error"]
        and r["operator_log_error"]
        and r["next_call_ok"]
        and r["read_under_lock_ok"]
        and r["reads_logged"] == r["reads"]
        and r["call_log_row"] is not None
        and r["call_log_row"][0] == "error"
        and r["elapsed_s"] <= r["busy_timeout_ms"] / 1000 + margin_s
    )


# -- the command -----------------------------------------------------------------------------
def table(d: dict) -> str:
    s, m, i, lk = d["soak"], d["kill_memory"], d["kill_ingest"], d["locked"]
    rows = [
        [
            "soak: no foreign id in any result",
            f"{s['calls']} calls, {len(CALLERS)} callers; error answers "
            f"{s['errors_by_tool'] or 0} (the memory tool's 'already exists' and 'does not exist'); own marker seen "
            f"{s['own_marker_seen']}x; violations {len(s['violations'])}",
            _ok(not s["violations"]),
        ],
        [
            "kill -9 of memgate serve mid memory writes",
            f"{m['attempted']} writes, {m['files']} files, integrity "
            f"{m['integrity_check']}, torn {len(m['torn'])}, logged-but-missing {len(m['logged_but_missing'])}, "
            f"committed without log row {len(m['committed_without_log_row'])}",
            _ok(d["ok"]["kill_memory"]),
        ],
        [
            "kill -9 of memgate ingest mid folder",
            f"{len(i['rounds'])} kills at "
            f"{', '.join(str(r['killed_after_s']) for r in i['rounds'])} s; half documents "
            f"{sum(len(r['half_documents']) for r in i['rounds'])}, orphan chunks "
            f"{sum(r['orphan_chunks'] for r in i['rounds'])}; rerun: {i['final']['documents']} documents",
            _ok(d["ok"]["kill_ingest"]),
        ],
        [
            "locked database (BEGIN IMMEDIATE elsewhere)",
            f"generic error after {lk['elapsed_s']} s (busy timeout "
            f"{lk['busy_timeout_ms']} ms); operator log ERROR: {lk['operator_log_error']}; call log row "
            f"{lk['call_log_row']}; a read under the lock answered, its row written after: "
            f"{lk['reads_logged']} of {lk['reads']} reads logged",
            _ok(d["ok"]["locked"]),
        ],
    ]
    return markdown_table(["check", "what happened", "result"], rows)


def _ok(flag: bool) -> str:
    return "pass" if flag else "FAIL"


async def run_all(tmp: Path, soak_calls_n: int, writes: int, kills: list[float], busy_ms: int) -> dict:
    from .ingest import write_files

    data = {"soak": await soak(tmp / "soak.db", soak_calls_n)}
    db = tmp / "kill.db"
    demo_database(db).close()
    data["kill_memory"] = await kill_during_memory_writes(db, writes)
    folder = tmp / "ingest"
    write_files(folder, files=6, paragraphs=300)
    data["kill_ingest"] = kill_during_ingest(db, folder, kills)
    locked = tmp / "locked.db"
    demo_database(locked).close()
    data["locked"] = await locked_database(locked, busy_ms)
    data["ok"] = {
        "soak": not data["soak"]["violations"],
        "kill_memory": memory_writes_ok(data["kill_memory"]),
        "kill_ingest": ingest_ok(data["kill_ingest"]),
        "locked": locked_ok(data["locked"], 2.0),
    }
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.reliability", description=__doc__.split("\n\n")[0])
    parser.add_argument("--soak-calls", type=int, default=2000)
    parser.add_argument("--writes", type=int, default=40, help="memory writes before the kill (default 40)")
    parser.add_argument(
        "--kills",
        type=float,
        nargs="+",
        default=[1.5, 3.0, 4.5, 6.0],
        help="seconds after which each `memgate ingest` is killed",
    )
    parser.add_argument("--busy-timeout-ms", type=int, default=5000)
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    started, info = time.perf_counter(), machine()
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        data = asyncio.run(run_all(Path(tmp), args.soak_calls, args.writes, args.kills, args.busy_timeout_ms))
    data["machine"] = info
    report(
        "reliability",
        "Reliability: isolation soak, kill -9, locked database",
        data,
        table(data),
        results=args.results,
        started=started,
    )
    return 0 if all(data["ok"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
