"""Concurrent writers of one memory file, as two processes would be: never a silently lost edit."""

from __future__ import annotations

import threading

import pytest
from backend_helpers import open_sqlite
from memory_helpers import ACME_AGENT, seed

from memgate.manager import MemoryManager
from memgate.manager.clock import now_iso
from memgate.manager.files.commands import MemoryFiles
from memgate.manager.files.stores import resolve_store
from memgate.manager.files.texts import MemoryToolError
from memgate.manager.limits import MemoryFileSettings

ROUNDS = 40
PATH = "/memories/board.md"


@pytest.fixture
def two_processes(sqlite_path, manager):
    """Two managers on separate backends (separate connection pools) over one database file."""
    seed(manager, ACME_AGENT)
    others = [open_sqlite(sqlite_path) for _ in range(2)]
    yield [MemoryManager(b) for b in others]
    for b in others:
        b.close()


def _run_together(workers) -> None:
    threads = [threading.Thread(target=w) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)


def test_interleaved_str_replace_on_one_file_never_drops_an_edit(two_processes):
    first, second = two_processes
    board = "".join(f"A{i}: todo\nB{i}: todo\nshared{i}: todo\n" for i in range(ROUNDS))
    assert not first.memory(ACME_AGENT, "create", path=PATH, file_text=board).is_error
    barrier = threading.Barrier(2)
    outcomes: dict[str, list] = {"A": [], "B": []}

    def worker(manager: MemoryManager, who: str):
        def go():
            for i in range(ROUNDS):
                barrier.wait()
                own = manager.memory(
                    ACME_AGENT,
                    "str_replace",
                    path=PATH,
                    old_str=f"{who}{i}: todo\n",
                    new_str=f"{who}{i}: done by {who}\n",
                )
                # Both writers go for the same line: exactly one may win it.
                contested = manager.memory(
                    ACME_AGENT,
                    "str_replace",
                    path=PATH,
                    old_str=f"shared{i}: todo\n",
                    new_str=f"shared{i}: done by {who}\n",
                )
                outcomes[who].append((own.is_error, contested.is_error, contested.text))

        return go

    _run_together([worker(first, "A"), worker(second, "B")])

    content = first.memory(ACME_AGENT, "view", path=PATH).text
    for i in range(ROUNDS):
        assert f"A{i}: done by A" in content and f"B{i}: done by B" in content
        assert content.count(f"shared{i}: done by") == 1
        winners = [who for who in "AB" if not outcomes[who][i][1]]
        assert len(winners) == 1
        assert f"shared{i}: done by {winners[0]}" in content
        loser = "B" if winners[0] == "A" else "A"
        assert outcomes[loser][i][2] == (
            f"No replacement was performed, old_str `shared{i}: todo\n` did not appear verbatim in {PATH}."
        )
    assert not any(own_err for who in "AB" for own_err, _, _ in outcomes[who])
    assert "todo" not in content


def test_a_str_replace_whose_target_changed_since_the_model_read_it_fails(two_processes):
    first, second = two_processes
    first.memory(ACME_AGENT, "create", path=PATH, file_text="status: draft\n")
    seen = first.memory(ACME_AGENT, "view", path=PATH).text  # the model reads "draft"
    assert "status: draft" in seen
    second.memory(ACME_AGENT, "str_replace", path=PATH, old_str="draft", new_str="approved")
    late = first.memory(ACME_AGENT, "str_replace", path=PATH, old_str="status: draft", new_str="status: rejected")
    assert late.is_error and late.text == (
        f"No replacement was performed, old_str `status: draft` did not appear verbatim in {PATH}."
    )
    assert "status: approved" in first.memory(ACME_AGENT, "view", path=PATH).text


def test_two_creates_racing_on_a_new_path_make_one_file_and_tell_the_other_it_exists(two_processes):
    first, second = two_processes
    barrier = threading.Barrier(2)
    results: dict[str, object] = {}

    def creator(manager: MemoryManager, who: str):
        def go():
            barrier.wait()
            results[who] = manager.memory(ACME_AGENT, "create", path="/memories/race.md", file_text=f"by {who}")

        return go

    _run_together([creator(first, "A"), creator(second, "B")])
    texts = sorted(r.text for r in results.values())
    assert texts == ["File /memories/race.md already exists", "File created successfully at: /memories/race.md"]
    winner = next(who for who, r in results.items() if not r.is_error)
    assert first.memory(ACME_AGENT, "view", path="/memories/race.md").text.endswith(f"\tby {winner}")


def test_a_create_after_a_delete_is_the_last_committed_write(two_processes):
    first, second = two_processes
    first.memory(ACME_AGENT, "create", path="/memories/x.md", file_text="old")
    second.memory(ACME_AGENT, "delete", path="/memories/x.md")
    assert not second.memory(ACME_AGENT, "create", path="/memories/x.md", file_text="new").is_error
    assert first.memory(ACME_AGENT, "view", path="/memories/x.md").text.endswith("\tnew")


def test_a_write_based_on_a_stale_version_is_refused_by_the_compare_and_set(manager, backend, two_processes):
    # On SQLite the write lock makes this unreachable through a command; the CAS is the
    # guard for backends whose transactions do not lock up front, so test it directly.
    first, second = two_processes
    first.memory(ACME_AGENT, "create", path=PATH, file_text="v1")
    store = resolve_store(ACME_AGENT, None)
    with backend.session(ACME_AGENT) as s:
        files = MemoryFiles(s, ACME_AGENT, store, MemoryFileSettings(), now_iso())
        stale = files._existing_file(PATH)
        second.memory(ACME_AGENT, "str_replace", path=PATH, old_str="v1", new_str="v2 from the other writer")
        with pytest.raises(MemoryToolError, match="changed while this command ran"), s.transaction():
            files._rewrite(stale, "v2 from a stale read")
    assert first.memory(ACME_AGENT, "view", path=PATH).text.endswith("\tv2 from the other writer")
