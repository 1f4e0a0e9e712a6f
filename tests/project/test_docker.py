"""The image keeps the README's promises. No Docker engine runs here: the Dockerfile and
.dockerignore are read as text, and the entrypoint script runs under sh with the real memgate."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from doc_helpers import doc_text

from memgate.server.cli import cli

ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"


def _instructions() -> dict[str, list[str]]:
    """Each Dockerfile instruction's arguments (continuation lines joined), by instruction."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            word, _, rest = line.strip().partition(" ")
            found.setdefault(word.upper(), []).append(rest.strip())
    return found


def test_the_server_runs_as_pid_1_from_an_entrypoint_that_execs_it():
    steps = _instructions()
    assert steps["ENTRYPOINT"] == ['["memgate-entrypoint"]']
    assert json.loads(steps["CMD"][0]) == ["memgate", "serve", "--transport", "http"]
    assert "sh -c" not in (ROOT / "Dockerfile").read_text()
    assert any("docker/entrypoint.sh /usr/local/bin/memgate-entrypoint" in r for r in steps["RUN"])
    assert ENTRYPOINT.read_text().rstrip().endswith('exec "$@"')


def test_a_healthcheck_asks_the_servers_health_route():
    [check] = _instructions()["HEALTHCHECK"]
    assert "CMD" in check and "http://127.0.0.1:%s/health" in check and "'8765'" in check


def test_the_mounted_config_is_read_without_setting_memgate_config():
    script = ENTRYPOINT.read_text()
    assert 'if [ -z "${MEMGATE_CONFIG:-}" ] && [ -f /config/memgate.toml ]; then' in script
    assert "export MEMGATE_CONFIG=/config/memgate.toml" in script
    hosts = doc_text("hosts")
    assert "/config/memgate.toml" in hosts and "MEMGATE_TENANTS" in hosts


def test_the_build_context_leaves_out_git_virtualenvs_builds_and_databases():
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".git", "build/", "*.db", "__pycache__", "*.egg-info"} <= ignored
    # a virtualenv at the top of the clone, by any common name, stays out of the build context
    from fnmatch import fnmatch

    from test_repository import VENV_NAMES

    assert [n for n in VENV_NAMES if not any(fnmatch(n, pattern) for pattern in ignored)] == []


def _entrypoint(tmp_path, *command, tenants="acme,globex"):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    env.update(
        PATH=f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
        MEMGATE_TENANTS=tenants,
        MEMGATE_DATABASE__PATH=str(tmp_path / "memgate.db"),
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    return subprocess.Popen(
        ["sh", str(ENTRYPOINT), *command],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def test_the_entrypoint_sets_up_the_tenants_memgate_tenants_names_reporting_on_stderr(tmp_path):
    proc = _entrypoint(tmp_path, "memgate", "tools", "list", "-t", "globex")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "tools for acme: " in err and "tools for globex: " in err
    assert out.startswith("tool") and "lookup_entity" in out and "tools for" not in out
    listed = CliRunner().invoke(cli, ["--db", str(tmp_path / "memgate.db"), "tools", "list", "-t", "acme"])
    assert "lookup_entity" in listed.output


def test_the_entrypoint_replaces_itself_with_the_command(tmp_path):
    proc = _entrypoint(tmp_path, sys.executable, "-c", "import os; print(os.getpid())", tenants="")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert int(out) == proc.pid
