"""`memgate link add|ls|rm` and `fact set`'s link, on a real database through click's runner."""

from __future__ import annotations

import re

import pytest
from cli_helpers import cli_runner


@pytest.fixture
def run(sqlite_path, monkeypatch):
    invoke = cli_runner(sqlite_path, monkeypatch)

    def run(*args: str, ok: bool = True) -> str:
        return invoke(*args, ok=ok).output

    run("init", "--demo")
    return run


def _lines(out: str) -> list[str]:
    """The listing with link ids blanked (they are random)."""
    return [re.sub(r"lnk_[0-9a-f]+", "lnk_…", line) for line in out.splitlines()]


def test_link_ls_shows_each_link_with_the_memory_as_subject(run):
    assert _lines(run("link", "ls", "ent_acme_helios_v2", "-t", "acme")) == [
        "lnk_…  ent_acme_helios_v2 supersedes ent_acme_helios_v1  (correction, since 2026-08-15T16:30:00.000Z)",
        "lnk_…  ent_acme_helios_v2 is_supported_by chk_acme_1_0  (explicit, since 2026-08-20T10:00:00.000Z)",
    ]


def test_link_ls_shows_a_users_links_only_in_that_users_scope(run):
    assert _lines(run("link", "ls", "chk_acme_1_0", "-t", "acme")) == [
        "lnk_…  chk_acme_1_0 supports ent_acme_helios_v2  (explicit, since 2026-08-20T10:00:00.000Z)"
    ]
    assert "chk_acme_1_0 contradicts sum_acme_july" in run("link", "ls", "chk_acme_1_0", "-t", "acme", "--user", "jane")


def test_link_add_then_add_again_then_rm(run):
    out = run("link", "add", "chk_acme_1_1", "supports", "ent_acme_helios_v2", "-t", "acme")
    assert re.fullmatch(r"linked: chk_acme_1_1 supports ent_acme_helios_v2 \((lnk_[0-9a-f]+)\)\n", out)
    link_id = re.search(r"lnk_[0-9a-f]+", out).group()
    again = run("link", "add", "ent_acme_helios_v2", "is_supported_by", "chk_acme_1_1", "-t", "acme")
    assert again == f"already linked: chk_acme_1_1 supports ent_acme_helios_v2 ({link_id})\n"
    assert run("link", "rm", link_id, "-t", "acme") == (
        f"removed: chk_acme_1_1 supports ent_acme_helios_v2 ({link_id})\n"
    )
    assert run("link", "ls", "chk_acme_1_1", "-t", "acme") == "chk_acme_1_1 has no links visible in this scope.\n"


def test_link_rm_by_its_two_memories(run):
    out = run("link", "rm", "chk_acme_1_0", "supports", "ent_acme_helios_v2", "-t", "acme")
    assert out.startswith("removed: chk_acme_1_0 supports ent_acme_helios_v2 (lnk_")
    err = run("link", "rm", "chk_acme_1_0", "supports", "ent_acme_helios_v2", "-t", "acme", ok=False)
    assert err == (
        "Error: no live link chk_acme_1_0 supports ent_acme_helios_v2. List the links of chk_acme_1_0 "
        "with `memgate link ls chk_acme_1_0 -t acme`.\n"
    )


@pytest.mark.parametrize(
    "args",
    [
        ("chk_acme_1_1", "supports", "ent_globex_helios_v1", "-t", "acme"),  # globex's claim
        ("chk_acme_1_1", "supports", "sum_acme_july", "-t", "acme", "--user", "bob"),  # jane's summary
    ],
)
def test_link_add_to_a_memory_out_of_scope_is_refused_and_writes_nothing(run, args):
    err = run("link", "add", *args, ok=False)
    assert err == (
        f"Error: to_id {args[2]!r} is no memory you can see; link ids your results showed. Check the id "
        "and the scope it lives in: a user's memories are visible only with that user (--user).\n"
    )
    assert run("link", "ls", "chk_acme_1_1", "-t", "acme") == "chk_acme_1_1 has no links visible in this scope.\n"


def test_fact_set_links_the_new_version_to_the_one_it_replaces(run):
    out = run("fact", "set", "model:helios-rag", "beir_ndcg10", "0.81", "-t", "acme", "--expect-version", "2")
    new_id = re.search(r"\((ent_[0-9a-f]+)\)", out).group(1)
    assert _lines(run("link", "ls", new_id, "-t", "acme"))[0].startswith(
        f"lnk_…  {new_id} supersedes ent_acme_helios_v2  (correction, since "
    )


def test_link_rm_needs_one_id_or_three_words(run):
    assert "give a link id (lnk_...) or FROM TYPE TO" in run("link", "rm", "a", "b", "-t", "acme", ok=False)
