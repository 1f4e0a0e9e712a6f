"""execute_query's temporary disk over MCP: a query that sorts or de-duplicates an unbounded row
source stops at caps.query_temp_mb with the rule too-big, while another client's writes go on.

Two real `memgate serve` processes over stdio on one SQLite file: acme runs the hostile
queries on a small cap, globex writes memory files all the while. The test watches the query
server's open SQLite temp files (/proc/<pid>/fd) from outside, so the figure it checks is
the disk the server really held, not what the server says it measured.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from stdio_helpers import RawStdio

CAP_MB = 32
# the cap plus what one query writes between two checks (20 ms at ~330 MB/s), with room for a busy machine
HELD_AT_MOST_MB = CAP_MB + 32
ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) "
HOSTILE = {
    "order-by": ENDLESS + "SELECT x FROM c ORDER BY printf('%1000s',x) DESC",
    "distinct": ENDLESS + "SELECT DISTINCT printf('%1000s',x) AS s FROM c ORDER BY s DESC",
    "count-distinct": ENDLESS + "SELECT count(DISTINCT printf('%1000s',x)) FROM c",
}
ANSWER = (
    f"The query was rejected: query refused (rule too-big): the query needed more than {CAP_MB} MB of "
    "temporary space; add a LIMIT before the ORDER BY or DISTINCT, or narrow the rows."
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="temp files are measured in /proc")


def _temp_bytes(pid: int) -> int:
    """The bytes of SQLite temp files process `pid` holds open now."""
    held = 0
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in os.listdir(fd_dir):
        try:
            if os.path.basename(os.readlink(fd_dir / fd)).startswith("etilqs_"):
                held += os.stat(fd_dir / fd).st_size
        except OSError:
            continue
    return held


class _Watch(threading.Thread):
    """Samples a process's temp files every 2 ms until stopped; `peak` is the most seen."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.002):
            self.peak = max(self.peak, _temp_bytes(self.pid))


def test_hostile_sorts_stop_at_the_temp_cap_while_another_clients_writes_succeed(sqlite_path, two_tenants, tmp_path):
    env = {"MEMGATE_CAPS__QUERY_TEMP_MB": str(CAP_MB), "MEMGATE_CAPS__QUERY_TIMEOUT_S": "60"}
    (tmp_path / "q").mkdir()
    (tmp_path / "w").mkdir()
    querier = RawStdio(["--db", str(sqlite_path), "serve", "--tenant", "acme"], tmp_path / "q", "legacy", env=env)
    writer = RawStdio(["--db", str(sqlite_path), "serve", "--tenant", "globex"], tmp_path / "w", "legacy")
    watch = _Watch(querier.proc.pid)
    answers: dict[str, tuple[float, float, dict]] = {}

    def attack() -> None:
        for name, sql in HOSTILE.items():
            started = time.monotonic()
            answer = querier.request("tools/call", {"name": "execute_query", "arguments": {"query": sql}})
            answers[name] = (started, time.monotonic(), answer)

    writes: list[tuple[float, float, dict]] = []
    try:
        querier.open_session()
        writer.open_session()
        watch.start()
        attacker = threading.Thread(target=attack, daemon=True)
        attacker.start()
        while attacker.is_alive() and len(writes) < 2000:
            started = time.monotonic()
            arguments = {"command": "create", "path": f"/memories/note-{len(writes)}.md", "file_text": "still here"}
            answer = writer.request("tools/call", {"name": "memory_write", "arguments": arguments})
            writes.append((started, time.monotonic(), answer))
        attacker.join(60)
        watch.done.set()
        watch.join()
        left = _temp_bytes(querier.proc.pid)
    finally:
        querier.close()
        writer.close()

    assert set(answers) == set(HOSTILE), "the attack did not finish"
    for name, (_, _, answer) in answers.items():
        text = answer["result"]["content"][0]["text"]
        assert answer["result"]["isError"] and text.startswith(ANSWER), (name, text)
    assert watch.peak <= HELD_AT_MOST_MB * 1024 * 1024, f"the server held {watch.peak / 2**20:.1f} MB of temp files"
    assert left == 0, "temp files outlived their query"
    assert writes and all(not w[2]["result"]["isError"] for w in writes), [
        w[2] for w in writes if w[2]["result"]["isError"]
    ]
    during = [w for w in writes for a in answers.values() if w[0] < a[1] and a[0] < w[1]]
    assert during, "no write ran while a hostile query did"
    log = querier.stderr_path.read_text()
    assert f"over caps.query_temp_mb = {CAP_MB} MB" in log, log[-2000:]
