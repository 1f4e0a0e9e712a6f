"""Per-call reads by key: a statement run on every call, timed at 100 and at 20,000 rows of the tenant.

    python3 -m bench.keyed_reads [--calls 2000]

The statement is run as the manager runs it: its named text through a walled session of one
caller (the wall's view and predicates included). The tenant's rows belong to 100 users, the
caller one of them; only the row count changes between the two sizes. The figure is the ratio of
the per-call time at 20,000 rows to that at 100: about 1 for a key range read, growing with the
rows for a walk. The same database is timed again the way it was read before (the index dropped,
or the statement's earlier text), so both ratios come from one run under the same load.

Statements: candidate_recent_count.sql (the promotion gate's rate cap, on every `remember`: before,
no index began with the proposer); calllog_cited.sql (was this record issued to the caller: the
gate's evidence rule, expand of an image id; before, instr() over the cited ids of every ok call
the wall let the caller see), asked for an id the caller's latest call cited.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memgate.manager import DatabaseSettings, Identity, open_backend
from memgate.manager.registry.calllog import cited_rows

from .common import markdown_table, report

SIZES = (100, 20_000)
USERS = 100
CALLER = Identity(tenant="acme", user="u000", agent="bench-agent", principal="bench:u000")


def _who(n: int) -> Identity:
    return Identity(tenant="acme", user=f"u{n:03d}", agent="bench-agent", principal=f"bench:u{n:03d}")


def _candidate(identity: Identity, i: int, at: str) -> dict:
    return {
        "id": f"cand-{identity.user}-{i}",
        "tenant_id": identity.tenant,
        "user_id": identity.user,
        "agent_id": identity.agent,
        "thread_id": None,
        "kind": "note",
        "scope": "user",
        "content": f"note {i} of {identity.user}",
        "content_hash": f"{identity.user}-{i}",
        "evidence_json": "[]",
        "decision": "promoted",
        "rule": "passed",
        "created_by": identity.principal,
        "created_at": at,
    }


def _stamp(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def seed_candidates(backend, rows: int, now: datetime) -> None:
    """`rows` candidates of the tenant, spread over USERS users and the last two days."""
    per = max(1, rows // USERS)
    for n in range(USERS):
        who = _who(n)
        batch = [_candidate(who, i, _stamp(now - timedelta(minutes=(i * 2880) // per))) for i in range(per)]
        with backend.session(who) as s, s.transaction():
            s.insert_many("memory_candidate", batch)


def _rate_cap(now: datetime, rows: int) -> Callable:
    since = _stamp(now - timedelta(hours=1))
    return lambda s: s.fetch_one("candidate_recent_count", created_by=CALLER.principal, since=since)


def seed_calls(backend, rows: int, now: datetime) -> None:
    """`rows` ok calls of the tenant, spread over USERS users and the last two days, each citing three ids
    (its mcp_call_cited rows written beside it, as the call log writes them)."""
    per = max(1, rows // USERS)
    for n in range(USERS):
        who = _who(n)
        calls = []
        for i in range(per):
            call_id = f"call_{who.user}_{i}"
            calls.append(
                {
                    "call_id": call_id,
                    "tenant_id": who.tenant,
                    "called_at": _stamp(now - timedelta(minutes=((per - i) * 2880) // per)),
                    "principal": who.principal,
                    "user_id": who.user,
                    "agent_id": who.agent,
                    "thread_id": None,
                    "tool_name": "search_memory",
                    "status": "ok",
                    "cited_ids": json.dumps([f"kbc_{who.user}_{i}_{k}" for k in range(3)]),
                }
            )
        with backend.session(who) as s, s.transaction():
            s.insert_many("mcp_call_log", calls)
            s.insert_many("mcp_call_cited", [c for call in calls for c in cited_rows(call)])


def _latest_cited(rows: int) -> str:
    return f"kbc_{CALLER.user}_{max(1, rows // USERS) - 1}_2"


def _cited(now: datetime, rows: int) -> Callable:
    return lambda s: s.fetch_one("calllog_cited", id=_latest_cited(rows))


#: the statement as it read before 029: every ok call's cited ids searched for the id as a JSON string
_CITED_BEFORE = "SELECT call_id FROM mcp_call_log WHERE status = 'ok' AND instr(cited_ids, :needle) > 0 LIMIT 1"


def _cited_before(now: datetime, rows: int) -> Callable:
    return lambda s: s.raw(_CITED_BEFORE, {"needle": json.dumps(_latest_cited(rows))})[0]


#: name -> (seed, the call as the manager makes it, the index it reads by, the read before: the same
#: call with that index dropped (None) or the earlier statement)
STATEMENTS: dict[str, tuple[Callable, Callable, str, Callable | None]] = {
    "candidate_recent_count": (seed_candidates, _rate_cap, "memory_candidate_creator_ix", None),
    "calllog_cited": (seed_calls, _cited, "mcp_call_cited_ix", _cited_before),
}


def per_call_us(backend, call: Callable, calls: int) -> float:
    """The median of ten batches' per-call time, in one walled session of the caller."""
    batch = max(1, calls // 10)
    times = []
    with backend.session(CALLER) as s:
        call(s)
        for _ in range(10):
            start = time.perf_counter()
            for _ in range(batch):
                call(s)
            times.append((time.perf_counter() - start) / batch * 1e6)
    return statistics.median(times)


def run(calls: int, sizes: tuple[int, int] = SIZES) -> dict:
    now = datetime.now(UTC)
    out: dict = {"calls": calls, "sizes": list(sizes), "statements": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (seed, make_call, index, before) in STATEMENTS.items():
            timed: dict[str, dict[int, float]] = {"keyed": {}, "walked": {}}
            for size in sizes:
                path = Path(tmp) / f"{name}-{size}.db"
                backend = open_backend(DatabaseSettings(path=path))
                try:
                    seed(backend, size, now)
                    timed["keyed"][size] = per_call_us(backend, make_call(now, size), calls)
                    if before is not None:
                        timed["walked"][size] = per_call_us(backend, before(now, size), calls)
                        continue
                    backend.close()
                    with closing(sqlite3.connect(path)) as conn:
                        conn.execute(f"DROP INDEX {index}")
                    backend = open_backend(DatabaseSettings(path=path))
                    timed["walked"][size] = per_call_us(backend, make_call(now, size), calls)
                finally:
                    backend.close()
            out["statements"][name] = {
                kind: {
                    "us_per_call": {str(k): round(v, 1) for k, v in t.items()},
                    "ratio": round(t[sizes[1]] / t[sizes[0]], 2),
                }
                for kind, t in timed.items()
            }
            out["statements"][name]["walked"]["read"] = "index dropped" if before is None else "the earlier statement"
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=2000, help="calls timed per size (ten batches)")
    ap.add_argument("--rows", type=int, nargs=2, default=SIZES, help="the two tenant sizes (rows), small then large")
    ap.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    sizes = (args.rows[0], args.rows[1])
    data = run(args.calls, sizes)
    rows = [
        [
            name,
            "by the index" if kind == "keyed" else t["read"],
            *(t["us_per_call"][str(n)] for n in sizes),
            f"{t['ratio']} x",
        ]
        for name, kinds in data["statements"].items()
        for kind, t in kinds.items()
    ]
    header = ["statement", "plan", *(f"µs/call at {n:,} rows" for n in sizes), f"ratio {sizes[1]:,} / {sizes[0]:,}"]
    title = f"Per-call reads by key: {sizes[0]:,} vs {sizes[1]:,} rows of the tenant"
    report("keyed_reads", title, data, markdown_table(header, rows), results=args.results, started=started)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
