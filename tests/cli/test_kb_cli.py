"""`memgate ingest` and `memgate search` through click's runner on a real database file."""

from __future__ import annotations

import os

import pytest
from cli_helpers import cli_runner
from click.testing import CliRunner

from memgate.server.cli import cli

SUPPORTED = ".gif, .htm, .html, .jpeg, .jpg, .markdown, .md, .pdf, .png, .txt, .webp"


@pytest.fixture
def run(sqlite_path, monkeypatch):
    return cli_runner(sqlite_path, monkeypatch)


@pytest.fixture
def folder(tmp_path):
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / ".git").mkdir()
    (docs / "runbook.md").write_text("# Flux runbook\n\nRestart the flux capacitor when the zebra alarm fires.\n")
    (docs / "sub" / "faq.html").write_text(
        "<html><head><title>Billing FAQ</title></head><body><p>Invoices go out monthly.</p></body></html>"
    )
    (docs / "notes.txt").write_text("Kumquats ripen in winter.")
    (docs / "drawing.svg").write_text("<svg/>")  # not a supported type: not picked up from a folder
    (docs / ".git" / "HEAD.md").write_text("# hidden")
    return docs


def test_ingesting_a_folder_shows_progress_and_a_summary_and_is_idempotent(run, folder):
    run("init", "-t", "acme")
    first = run("ingest", str(folder), "-t", "acme", "--collection", "handbook")
    assert "ingesting" in first.stderr
    assert first.stdout.startswith("3 file(s): 3 new, 0 unchanged, 0 replaced, 0 failed; 3 chunk(s), ")
    assert first.stdout.splitlines()[1] == (
        f"skipped 1 file(s) of a type it cannot read: drawing.svg (supported: {SUPPORTED})"
    )
    again = run("ingest", str(folder), "-t", "acme", "--collection", "handbook")
    assert again.stdout.startswith("3 file(s): 0 new, 3 unchanged, 0 replaced, 0 failed; 0 chunk(s), 0 token(s) ")
    (folder / "notes.txt").write_text("Kumquats ripen in late autumn.")
    changed = run("ingest", str(folder), "-t", "acme", "--collection", "handbook", "-q")
    assert changed.stdout.startswith("3 file(s): 0 new, 2 unchanged, 1 replaced, 0 failed; 1 chunk(s), ")
    assert changed.stderr == ""


def test_bad_files_are_reported_one_by_one_and_the_others_still_go_in(run, folder):
    (folder / "bad.txt").write_bytes(b"\xff\xfe")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    run("init", "-t", "acme")
    result = run("ingest", str(folder), str(folder / "missing.md"), "-t", "acme", code=1)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("6 file(s): 3 new, 0 unchanged, 0 replaced, 3 failed; 3 chunk(s), ")
    assert lines[1:] == [
        f"failed: {folder / 'bad.txt'}: bad.txt is not valid UTF-8 (bad byte at offset 0). "
        "Re-save it as UTF-8, e.g. iconv -f latin1 -t utf-8.",
        f"failed: {folder / 'broken.pdf'}: broken.pdf is not a readable PDF. "
        "Check that it opens in a PDF viewer, or export it again.",
        f"failed: {folder / 'missing.md'}: missing.md does not exist or is not a file.",
        f"skipped 1 file(s) of a type it cannot read: drawing.svg (supported: {SUPPORTED})",
    ]
    assert "Flux runbook" in run("search", "zebra alarm", "-t", "acme").stdout


def test_search_after_init_demo_finds_demo_chunks_for_the_tenant_only(run):
    run("init", "--demo")
    acme = run("search", "helios BEIR re-run", "-t", "acme").stdout
    assert "title: Helios RAG evaluation report (August re-run)" in acme and "vector_rank=" in acme
    globex = run("search", "helios BEIR re-run", "-t", "globex").stdout
    assert "Globex support handbook" in globex and "August re-run" not in globex


def test_overlap_must_be_smaller_than_the_chunk(run, folder):
    run("init", "-t", "acme")
    out = run("ingest", str(folder), "-t", "acme", "--chunk-tokens", "32", "--overlap-tokens", "32", code=2)
    assert "--overlap-tokens" in out.output and "must be smaller than --chunk-tokens" in out.output


def test_ingesting_a_path_that_does_not_exist_says_so(run):
    run("init", "-t", "acme")
    result = run("ingest", "/nonexistent", "-t", "acme", "-q", code=1)
    assert result.stdout.splitlines()[1:] == ["failed: /nonexistent: nonexistent does not exist or is not a file."]


def test_ingesting_into_a_tenant_never_set_up_is_refused_with_the_init_command(run, folder, sqlite_path):
    run("init", "-t", "acme")
    result = run("ingest", str(folder), "-t", "initech", "-q", code=1)
    assert result.output == (
        f"Error: tenant initech is not set up in {sqlite_path}, whose tenants are acme. "
        f"To set initech up, run `memgate --db {sqlite_path} init --tenant initech`.\n"
    )
    assert "Flux runbook" not in run("search", "zebra alarm", "-t", "acme").stdout


@pytest.mark.parametrize(
    "args",
    [
        ["init", "--tenant", "bad tenant!"],
        ["ingest", "README.md", "-t", "acme corp"],
        ["ingest", "README.md", "-t", "acme", "--user", "jane doe"],
        ["search", "q", "-t", "acme", "--agent", "a/b"],
        ["fact", "get", "s", "-t", "-rf"],
        ["serve", "--tenant", "x" * 201],
    ],
)
def test_tenant_user_and_agent_ids_are_checked_where_they_enter(run, args, sqlite_path):
    out = run(*args, code=2).output
    assert (
        "is not a valid" in out
        and "use 1-200 characters of letters, digits and . _ @ : | + -, starting with a letter or digit." in out
    )
    assert not sqlite_path.exists()


def _ingest_on_a_terminal(sqlite_path, folder) -> str:
    """`memgate ingest FOLDER` on a real terminal (a pty), as a person runs it: what the terminal showed."""
    import pty
    import subprocess
    import sys

    assert CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "-t", "acme"]).exit_code == 0
    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    done = subprocess.run(
        [sys.executable, "-m", "memgate", "--db", str(sqlite_path), "ingest", str(folder), "-t", "acme"],
        stderr=follower,
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=120,
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert done.returncode == 0
    return shown.decode()


def test_the_progress_bar_shows_paths_relative_to_the_folder_given(sqlite_path, folder):
    text = _ingest_on_a_terminal(sqlite_path, folder)
    assert "sub/faq.html" in text and "100%" in text


def test_the_progress_bar_advances_by_bytes_not_by_files(sqlite_path, tmp_path):
    """A file of nine tenths of the bytes is nine tenths of the bar (by files it would be half), so
    the estimate after it does not extrapolate from a small file to a large one."""
    docs = tmp_path / "sized"
    docs.mkdir()
    sentence = "The zebra herd crossed the river at dawn. "
    (docs / "a_large.md").write_text(sentence * 180)  # 7560 bytes
    (docs / "b_small.md").write_text(sentence * 20)  # 840 bytes
    frames = _ingest_on_a_terminal(sqlite_path, docs).replace("\r", "\n").splitlines()
    percents = [f.split("%")[0].split()[-1] for f in frames if "%" in f]
    assert "90" in percents and "50" not in percents, frames


def test_ingest_for_a_user_is_found_by_that_user_only(run, folder, backend):
    from backend_helpers import operator_rows

    assert run("init", "-t", "acme").exit_code == 0
    run("ingest", str(folder), "-t", "acme", "--user", "jane", "-q")
    chunks = operator_rows(backend, "knowledge_base_chunk")
    assert len(chunks) == 3 and {c["user_id"] for c in chunks} == {"jane"}
    assert "Flux runbook" in run("search", "zebra alarm", "-t", "acme", "--user", "jane").output
    for other in (("--user", "bob"), ()):
        assert "Flux runbook" not in run("search", "zebra alarm", "-t", "acme", *other).output, other
