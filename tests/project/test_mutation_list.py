"""The mutation audit's lists stay runnable: every entry's line is still in its file exactly once,
and every test it names exists (bench/mutations.toml, and the write paths' outside audit,
bench/audit_write_paths.toml). The sabotages themselves run only in `python3 -m bench.mutations`."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.mutations import LIST_FILE, load, mutated, occurrences

ROOT = Path(__file__).resolve().parents[2]
MUTATIONS = load()
AUDIT = load(ROOT / "bench" / "audit_write_paths.toml")
LISTS = [*MUTATIONS, *AUDIT]


def test_the_list_holds_enough_sabotages_across_the_layers_and_capabilities():
    assert len(MUTATIONS) >= 200 and len(AUDIT) >= 100
    layers = {m.file.split("/")[0] for m in MUTATIONS}
    assert {"manager", "toolbox", "server", "sql"} <= layers
    capabilities = {m.capability for m in MUTATIONS}
    assert {"retention", "temp caps", "execute_query", "step-up", "session slots", "query terms"} <= capabilities


@pytest.mark.parametrize("m", LISTS, ids=[m.id for m in LISTS])
def test_each_original_line_is_in_its_file_exactly_once(m):
    text = (ROOT / m.file).read_text()
    assert len(occurrences(text, m.line)) == 1, f"{m.id}: {m.line!r} is not in {m.file} exactly once"
    assert mutated(text, m) != text


@pytest.mark.parametrize("m", LISTS, ids=[m.id for m in LISTS])
def test_each_named_test_exists(m):
    for test in m.tests:
        path, _, name = test.partition("::")
        if m in AUDIT and not name:  # the outside audit may name a capability's whole test folder
            assert (ROOT / path).exists(), f"{m.id}: no tests {path}"
            continue
        assert (ROOT / path).is_file(), f"{m.id}: no test file {path}"
        if name:
            function = name.split("[")[0].split("::")[-1]
            assert f"def {function}(" in (ROOT / path).read_text(), f"{m.id}: no test {name} in {path}"


def test_a_malformed_entry_is_refused_naming_it(tmp_path):
    bad = tmp_path / "list.toml"
    bad.write_text(
        '[[mutation]]\nid = "x"\ncapability = "c"\nfile = "a.py"\nline = "  indented"\nto = "y"\ntests = ["t"]\n'
    )
    with pytest.raises(ValueError, match="^x: `line` is one line without its indentation"):
        load(bad)
    bad.write_text('[[mutation]]\nid = "x"\nfile = "a.py"\nline = "a"\nto = "b"\ntests = ["t"]\n')
    with pytest.raises(ValueError, match=r"^entry 1 of list.toml lacks \['capability'\]"):
        load(bad)
    assert LIST_FILE.is_file()
