"""`memgate reembed` after `[kb] embedder` changes: every chunk moves to the new model, and a second run has nothing to do."""

from __future__ import annotations

import pytest
from cli_helpers import cli_runner


@pytest.fixture
def run(sqlite_path, monkeypatch):
    return cli_runner(sqlite_path, monkeypatch)


def test_reembed_moves_the_tenants_chunks_to_the_configured_embedder_once(run, tmp_path, monkeypatch):
    for name, text in (("a.md", "Kumquats ripen in winter."), ("b.md", "The zebra alarm fires at dawn.")):
        (tmp_path / name).write_text(text)
    run("init", "-t", "acme")
    run("ingest", str(tmp_path / "a.md"), str(tmp_path / "b.md"), "-t", "acme", "-q")
    monkeypatch.setenv("MEMGATE_KB__EMBEDDER", "hashing")
    first = run("reembed", "-t", "acme", "--batch", "1")
    assert "embedding (hashing-256)" in first.stderr
    assert first.stdout.startswith("2 chunk(s) re-embedded with hashing-256 in ")
    assert run("reembed", "-t", "acme", "-q").stdout.startswith("0 chunk(s) re-embedded with hashing-256")
    found = run("search", "kumquats winter", "-t", "acme").stdout
    assert "Kumquats ripen in winter." in found


def test_an_unknown_embedder_is_refused_by_the_settings(run, monkeypatch):
    monkeypatch.setenv("MEMGATE_KB__EMBEDDER", "bert-large")
    result = run("reembed", "-t", "acme", ok=False)
    assert "embedder" in result.output and "wordllama" in result.output
