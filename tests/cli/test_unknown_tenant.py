"""A mistyped tenant or subject is said, never confirmed: every command that takes --tenant refuses one
the database never set up, naming the tenants it has ("did you mean acme?") and changing nothing; and
`forget` on a subject with no rows says so and writes no erasure record unless asked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from backend_helpers import operator_rows, table_digest
from click.testing import CliRunner

from memgate.server.cli import cli

README = str(Path(__file__).resolve().parents[2] / "README.md")
#: commands that take a tenant but do not refuse an unknown one, and why
NOT_CHECKED = {
    ("init",): "it sets tenants up",
    ("serve",): "refuses by itself, and also a tenant whose every tool is disabled (tested below)",
}


def _leaves(group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from _leaves(command, ctx, (*path, name))
        else:
            yield (*path, name), command


def _value(param: click.Parameter) -> str:
    """A value the parameter's type accepts, so that parsing reaches the tenant check."""
    kind = param.type
    if isinstance(kind, click.Choice):
        return str(kind.choices[0])
    if isinstance(kind, (click.IntRange, click.FloatRange)):
        return str((kind.min or 0) + 1)
    if isinstance(kind, (click.Path, click.File)):
        return README
    return "x"


def _arguments(command: click.Command) -> list[str]:
    """The command's required arguments and options, each with an acceptable value (not --tenant)."""
    args: list[str] = []
    for param in command.params:
        if param.name == "tenant":
            continue
        if isinstance(param, click.Argument) and param.required:
            args.append(_value(param))
        elif isinstance(param, click.Option) and (param.required or param.prompt):
            args += [param.opts[0]] if param.is_flag else [param.opts[0], _value(param)]
    return args


TENANT_COMMANDS = [
    path
    for path, command in _leaves(cli, click.Context(cli))
    if any(p.name in ("tenant", "tenants") for p in command.params) and path not in NOT_CHECKED
]


def test_the_list_covers_the_commands_that_take_a_tenant():
    assert {("fact", "get"), ("forget",), ("candidates", "ls"), ("log",), ("ui",), ("tenants", "map")} <= set(
        TENANT_COMMANDS
    )


@pytest.fixture
def demo_db(sqlite_path, monkeypatch):
    for key in [k for k in os.environ if k.startswith("MEMGATE_")]:
        monkeypatch.delenv(key)
    assert CliRunner().invoke(cli, ["--db", str(sqlite_path), "init", "--demo"]).exit_code == 0
    return sqlite_path


def _run(db, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), *args])


@pytest.mark.parametrize("path", TENANT_COMMANDS, ids=" ".join)
def test_every_command_refuses_a_mistyped_tenant_naming_the_known_ones(demo_db, backend, path):
    command = cli
    for name in path:
        command = command.get_command(click.Context(command), name)
    before = table_digest(backend)
    result = _run(demo_db, *path, *_arguments(command), "--tenant", "acmee")
    assert (result.exit_code, result.output) == (
        1,
        f"Error: tenant acmee is not set up in {demo_db}, whose tenants are acme, globex. Did you mean acme? "
        f"To set acmee up, run `memgate --db {demo_db} init --tenant acmee`.\n",
    )
    assert table_digest(backend) == before


def test_a_tenant_on_a_database_that_does_not_exist_yet_names_the_init_command(tmp_path, monkeypatch):
    db = tmp_path / "new.db"
    result = _run(db, "fact", "get", "model:helios-rag", "-t", "acme")
    assert (result.exit_code, result.output) == (
        1,
        f"Error: tenant acme is not set up in {db}. Run `memgate --db {db} init --tenant acme` first.\n",
    )
    assert not db.exists()


def test_a_usage_error_is_said_before_the_tenant(demo_db):
    result = _run(demo_db, "fact", "get", "s", "-t", "acmee", "--user", "jane doe")
    assert result.exit_code == 2 and "Invalid value for '--user'" in result.output


def test_serve_refuses_a_mistyped_tenant_the_same_way(demo_db, tmp_path):
    # a process of its own: serve sets up the process's logging, which a test must not do to the suite's
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    done = subprocess.run(
        [sys.executable, "-m", "memgate", "--db", str(demo_db), "serve", "--tenant", "acmee"],
        env={**env, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert f"whose tenants are acme, globex. Did you mean acme? To set acmee up, run `memgate --db {demo_db}" in (
        done.stderr
    )


def test_the_call_log_of_refused_http_tokens_stays_readable(demo_db):
    assert _run(demo_db, "log", "-t", ":unmapped").exit_code == 0


def test_forget_of_a_user_with_no_rows_says_so_and_records_nothing(demo_db, backend):
    before = table_digest(backend)
    result = _run(demo_db, "forget", "-t", "acme", "--user", "jnae", "--yes")
    assert result.exit_code == 0, result.output
    assert result.output == (
        "user jnae has no rows in tenant acme: nothing erased, and no erasure record written "
        "(--record-empty writes one).\n"
    )
    assert table_digest(backend) == before
    assert operator_rows(backend, "erasure_log") == []


def test_forget_record_empty_writes_the_record_of_the_request(demo_db, backend):
    result = _run(demo_db, "forget", "-t", "acme", "--user", "jnae", "--yes", "--record-empty")
    assert result.exit_code == 0 and "erased 0 row(s) of user jnae in tenant acme (erasure era_" in result.output
    [record] = operator_rows(backend, "erasure_log")
    assert (record["subject"], record["status"]) == ("jnae", "done")


def test_forget_dry_run_says_would_not_erased(demo_db, backend):
    before = table_digest(backend)
    result = CliRunner().invoke(cli, ["--db", str(demo_db), "forget", "-t", "acme", "--user", "jane", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "would erase" in result.stdout and "erased" not in result.stdout.replace("would erase", "")
    progress = result.stderr.splitlines()
    assert progress and all(line.endswith("would be erased") for line in progress), progress
    assert table_digest(backend) == before


def test_forget_dry_run_of_a_user_with_no_rows_says_check_the_id(demo_db):
    result = _run(demo_db, "forget", "-t", "acme", "--user", "jnae", "--dry-run")
    assert result.exit_code == 0
    assert "would erase 0 row(s) of user jnae" in result.output and "user jnae has no rows in tenant acme" in (
        result.output
    )
