"""Traversal attempts through every path-taking command: all get the contract's error and touch nothing."""

from __future__ import annotations

import pytest
from memory_helpers import ACME_AGENT, GLOBEX_AGENT, run_calls, seed, snapshot


def must_start(shown: str) -> str:
    return f"Path must start with /memories, got: {shown}"


def escapes(shown: str) -> str:
    return f"Path {shown} would escape /memories directory"


LONG = "/memories/" + "a/" * 300 + "x.md"

# (raw path, whole text the model gets back)
ATTEMPTS = [
    ("/etc/passwd", must_start("/etc/passwd")),
    ("memories/a.md", must_start("memories/a.md")),
    ("../memories/a.md", must_start("../memories/a.md")),
    ("/tmp/../memories/a.md", must_start("/tmp/../memories/a.md")),
    ("~/memories/a.md", must_start("~/memories/a.md")),
    ("//memories/a.md", must_start("//memories/a.md")),
    ("\\memories\\a.md", must_start("\\memories\\a.md")),
    ("%2fmemories%2fa.md", must_start("%2fmemories%2fa.md")),
    ("\uff0fmemories/a.md", must_start("\uff0fmemories/a.md")),
    ("file:///memories/a.md", must_start("file:///memories/a.md")),
    ("/memories/..", escapes("/memories/..")),
    ("/memories/../etc/passwd", escapes("/memories/../etc/passwd")),
    ("/memories/a/../../etc/passwd", escapes("/memories/a/../../etc/passwd")),
    ("/memories/a/../a.md", escapes("/memories/a/../a.md")),
    ("/memories/./a.md", escapes("/memories/./a.md")),
    ("/memories/...", escapes("/memories/...")),
    ("/memories../x", escapes("/memories../x")),
    ("/memoriesX/a.md", escapes("/memoriesX/a.md")),
    ("/memories/..\\..\\etc\\passwd", escapes("/memories/..\\..\\etc\\passwd")),
    ("/memories\\..\\secret", escapes("/memories\\..\\secret")),
    ("/memories/%2e%2e/secret", escapes("/memories/%2e%2e/secret")),
    ("/memories/%2E%2E%2Fsecret", escapes("/memories/%2E%2E%2Fsecret")),
    ("/memories/..%2fsecret", escapes("/memories/..%2fsecret")),
    ("/memories/a%5c..%5cb", escapes("/memories/a%5c..%5cb")),
    ("/memories/%252e%252e/secret", escapes("/memories/%252e%252e/secret")),
    ("/memories/%c0%ae%c0%ae/secret", escapes("/memories/%c0%ae%c0%ae/secret")),
    ("/memories/\uff0e\uff0e/secret", escapes("/memories/\uff0e\uff0e/secret")),
    ("/memories/a\uff0f..\uff0fb", escapes("/memories/a\uff0f..\uff0fb")),
    ("/memories/\u2024\u2024/secret", escapes("/memories/\u2024\u2024/secret")),
    ("/memories/\u2025/secret", escapes("/memories/\u2025/secret")),
    ("/memories/a\uff3c..", escapes("/memories/a\uff3c..")),
    ("/memories/\ufe52\ufe52/x", escapes("/memories/\ufe52\ufe52/x")),
    ("/memories/a.md\x00.txt", escapes("/memories/a.md\\x00.txt")),
    ("/memories/a\nb.md", escapes("/memories/a\\nb.md")),
    ("/memories/a\rb.md", escapes("/memories/a\\rb.md")),
    ("/memories/a\x1bb.md", escapes("/memories/a\\x1bb.md")),
    ("/memories/a\u202eb.md", escapes("/memories/a\\u202eb.md")),
    ("/memories/a\u200b/b.md", escapes("/memories/a\\u200b/b.md")),
    ("/memories/~/a.md", escapes("/memories/~/a.md")),
    ("/memories/ /a.md", escapes("/memories/ /a.md")),
    ("/memories/a.md.", escapes("/memories/a.md.")),
    ("/memories/a.md ", escapes("/memories/a.md ")),
    ("/memories/a.md. ", escapes("/memories/a.md. ")),
    ("/memories/dir./a.md", escapes("/memories/dir./a.md")),
    ("/memories/" + "a" * 256, escapes("/memories/" + "a" * 256)),
    (LONG, escapes(LONG[:512] + "...")),
]


def test_the_list_holds_at_least_thirty_distinct_encodings():
    assert len({raw for raw, _ in ATTEMPTS}) == len(ATTEMPTS) >= 30


def _commands(raw: str) -> list[dict]:
    """Every argument slot that takes a path, given the hostile one."""
    return [
        {"command": "view", "path": raw},
        {"command": "create", "path": raw, "file_text": "pwned"},
        {"command": "str_replace", "path": raw, "old_str": "keep", "new_str": "pwned"},
        {"command": "insert", "path": raw, "insert_line": 0, "insert_text": "pwned"},
        {"command": "delete", "path": raw},
        {"command": "rename", "old_path": raw, "new_path": "/memories/moved.md"},
        {"command": "rename", "old_path": "/memories/a.md", "new_path": raw},
    ]


@pytest.fixture
def stores(manager):
    """acme and globex each hold /memories/a.md, so a traversal has something to hit."""
    for identity in (ACME_AGENT, GLOBEX_AGENT):
        seed(manager, identity)
        run_calls(manager, identity, lambda s: s.call(command="create", path="/memories/a.md", file_text="keep"))
    return manager


def test_every_traversal_attempt_in_every_path_slot_gets_the_contract_error_and_writes_nothing(stores, backend):
    before = snapshot(backend)

    async def calls(s):
        got = []
        for raw, text in ATTEMPTS:
            for arguments in _commands(raw):
                got.append((arguments["command"], raw, *await s.call(**arguments)))
        return got

    results = run_calls(stores, ACME_AGENT, calls)
    expected = [(a["command"], raw, True, text) for raw, text in ATTEMPTS for a in _commands(raw)]
    assert results == expected
    assert snapshot(backend) == before
    assert len(results) == 7 * len(ATTEMPTS)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_names_that_look_the_same_are_one_file(manager, mode):
    """A decomposed accent (e + U+0301) names the same file as the composed one, in every slot."""
    seed(manager, ACME_AGENT)
    composed, decomposed = "/memories/caf\u00e9/r\u00e9sum\u00e9.md", "/memories/cafe\u0301/re\u0301sume\u0301.md"

    async def calls(s):
        return [
            await s.call(command="create", path=decomposed, file_text="keep"),
            await s.call(command="create", path=composed, file_text="second"),
            await s.call(command="str_replace", path=composed, old_str="keep", new_str="kept"),
            await s.call(command="view", path=decomposed),
            await s.call(command="rename", old_path=decomposed, new_path="/memories/cafe\u0301/final.md"),
            await s.call(command="view", path="/memories/caf\u00e9"),
        ]

    results = run_calls(manager, ACME_AGENT, calls, mode=mode)
    assert results[0] == (False, f"File created successfully at: {composed}")
    assert results[1] == (True, f"File {composed} already exists")
    assert results[2][0] is False
    assert results[3] == (False, f"Here's the content of {composed} with line numbers:\n     1\tkept")
    assert results[4] == (False, f"Successfully renamed {composed} to /memories/caf\u00e9/final.md")
    assert results[5][1].splitlines()[1:] == ["4K\t/memories/caf\u00e9", "4B\t/memories/caf\u00e9/final.md"]
