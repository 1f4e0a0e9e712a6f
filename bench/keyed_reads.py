"""Per-call reads by key: a statement run on every call, timed at 100 and at 20,000 rows of the tenant.

    python3 -m bench.keyed_reads [--calls 2000]

The statement is run as the manager runs it: its named text through a walled session of one
caller (the wall's view and predicates included). The tenant's rows belong to 100 users, the
caller one of them; only the row count changes between the two sizes. The figure is the ratio of
the per-call time at 20,000 rows to that at 100: about 1 for a key range read, growing with the
rows for a walk. The same database is timed again with the statement's index dropped (the plan
before the index), so both ratios come from one run under the same load.

Statements: candidate_recent_count.sql (the promotion gate's rate cap, on every `remember`).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memgate.manager import DatabaseSettings, Identity, open_backend

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


def _rate_cap(now: datetime) -> Callable:
    since = _stamp(now - timedelta(hours=1))
    return lambda s: s.fetch_one("candidate_recent_count", created_by=CALLER.principal, since=since)


#: name -> (seed, the call as the manager makes it, the index it reads by)
STATEMENTS = {"candidate_recent_count": (seed_candidates, _rate_cap, "memory_candidate_creator_ix")}


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
        for name, (seed, make_call, index) in STATEMENTS.items():
            timed: dict[str, dict[int, float]] = {"keyed": {}, "walked": {}}
            for size in sizes:
                backend = open_backend(DatabaseSettings(path=Path(tmp) / f"{name}-{size}.db"))
                try:
                    seed(backend, size, now)
                    timed["keyed"][size] = per_call_us(backend, make_call(now), calls)
                    with backend.unwalled_connection() as conn:
                        conn.execute(f"DROP INDEX {index}")
                    backend.close()
                    backend = open_backend(DatabaseSettings(path=Path(tmp) / f"{name}-{size}.db"))
                    timed["walked"][size] = per_call_us(backend, make_call(now), calls)
                finally:
                    backend.close()
            out["statements"][name] = {
                kind: {
                    "us_per_call": {str(k): round(v, 1) for k, v in t.items()},
                    "ratio": round(t[sizes[1]] / t[sizes[0]], 2),
                }
                for kind, t in timed.items()
            }
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
            "by the index" if kind == "keyed" else "index dropped",
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
