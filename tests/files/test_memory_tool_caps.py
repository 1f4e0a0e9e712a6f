"""Store caps: a write past a cap is refused with a text asking to tidy memory, and nothing changes."""

from __future__ import annotations

import pytest
from memory_helpers import ACME_AGENT, run_calls, seed, snapshot
from pydantic import ValidationError

from memgate.manager import MemoryManager
from memgate.manager.limits import MemoryFileSettings

TIDY = "Keep memory small: merge related files or delete outdated ones, then try again."


@pytest.fixture
def capped(backend):
    manager = MemoryManager(
        backend, memory_files=MemoryFileSettings(max_file_chars=50, max_files=3, max_store_chars=100)
    )
    seed(manager, ACME_AGENT)
    return manager


def _prepare(s):
    async def go():
        assert (await s.call(command="create", path="/memories/a.md", file_text="a" * 40))[0] is False
        assert (await s.call(command="create", path="/memories/b.md", file_text="b" * 40))[0] is False

    return go()


@pytest.mark.parametrize(
    "arguments, text",
    [
        (
            {"command": "create", "path": "/memories/big.md", "file_text": "x" * 51},
            "File /memories/big.md was not written: it would hold 51 characters, over the limit of 50 characters per "
            f"memory file. Split it, or merge and shorten old notes. {TIDY}",
        ),
        (
            {"command": "str_replace", "path": "/memories/a.md", "old_str": "a" * 40, "new_str": "y" * 60},
            "File /memories/a.md was not written: it would hold 60 characters, over the limit of 50 characters per "
            f"memory file. Split it, or merge and shorten old notes. {TIDY}",
        ),
        (
            {"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "z" * 20},
            "File /memories/a.md was not written: it would hold 62 characters, over the limit of 50 characters per "
            f"memory file. Split it, or merge and shorten old notes. {TIDY}",
        ),
        (
            {"command": "create", "path": "/memories/c.md", "file_text": "c" * 21},
            f"File /memories/c.md was not written: the memory store would hold 101 characters, over its limit of 100. {TIDY}",
        ),
    ],
)
def test_a_write_past_a_cap_is_refused_and_leaves_the_store_unchanged(capped, backend, arguments, text):
    async def calls(s):
        await _prepare(s)
        before = snapshot(backend)
        got = await s.call(**arguments)
        return before, got

    before, got = run_calls(capped, ACME_AGENT, calls)
    assert got == (True, text)
    assert snapshot(backend) == before


def test_the_file_count_cap_refuses_one_file_too_many(capped, backend):
    async def calls(s):
        for name in ("1", "2", "3"):
            assert (await s.call(command="create", path=f"/memories/{name}.md", file_text="x"))[0] is False
        before = snapshot(backend)
        return before, await s.call(command="create", path="/memories/4.md", file_text="x")

    before, got = run_calls(capped, ACME_AGENT, calls)
    assert got == (
        True,
        f"File /memories/4.md was not created: this memory store already holds 3 files, its limit. {TIDY}",
    )
    assert snapshot(backend) == before


def test_writes_up_to_the_caps_and_shrinking_edits_go_through(capped):
    async def calls(s):
        return [
            await s.call(command="create", path="/memories/a.md", file_text="a" * 50),
            await s.call(command="create", path="/memories/b.md", file_text="b" * 50),
            await s.call(command="str_replace", path="/memories/a.md", old_str="a" * 50, new_str="short"),
            await s.call(command="rename", old_path="/memories/b.md", new_path="/memories/c.md"),
        ]

    assert [err for err, _ in run_calls(capped, ACME_AGENT, calls)] == [False] * 4


def test_after_a_cap_is_lowered_a_file_over_it_can_still_be_trimmed(backend):
    roomy = MemoryManager(backend)
    seed(roomy, ACME_AGENT)
    run_calls(
        roomy, ACME_AGENT, lambda s: s.call(command="create", path="/memories/long.md", file_text="x" * 80 + "END")
    )
    tight = MemoryManager(backend, memory_files=MemoryFileSettings(max_file_chars=50))

    async def calls(s):
        return [
            await s.call(command="str_replace", path="/memories/long.md", old_str="END", new_str="END+MORE"),
            await s.call(command="str_replace", path="/memories/long.md", old_str="x" * 80, new_str="x" * 10),
        ]

    grow, trim = run_calls(tight, ACME_AGENT, calls)
    assert grow[0] is True and "over the limit of 50 characters" in grow[1]
    assert trim[0] is False


def test_long_paths_are_refused_at_the_configured_limit(backend):
    manager = MemoryManager(backend, memory_files=MemoryFileSettings(max_path_chars=40))
    seed(manager, ACME_AGENT)
    path = "/memories/" + "p" * 31  # 41 bytes
    assert run_calls(manager, ACME_AGENT, lambda s: s.call(command="create", path=path, file_text="x")) == (
        True,
        f"Path {path[:40]}... would escape /memories directory",
    )


def test_memory_file_settings_refuse_a_store_cap_below_the_file_cap():
    with pytest.raises(ValidationError, match="max_store_chars"):
        MemoryFileSettings(max_file_chars=1000, max_store_chars=10)
