"""The image keeps the README's promises. No Docker engine runs here: the Dockerfile and
.dockerignore are read as text, and the entrypoint script runs under sh with the real memgate."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
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


def _image_env() -> dict[str, str]:
    """The Dockerfile's ENV, as the image sets it."""
    env = {}
    for instruction in _instructions()["ENV"]:
        for word in shlex.split(instruction):
            key, _, value = word.partition("=")
            env[key] = value
    return env


def _run_line(text: str) -> list[str]:
    """The `docker run ...` command a page shows (its continuation lines joined), as words."""
    [line] = [
        ln for ln in re.sub(r"\\\n\s*", "", text).splitlines() if "docker run -p" in ln and "-e MEMGATE_HTTP" in ln
    ]
    return shlex.split(line[line.index("docker run") :].split("`")[0])


def _container_env(words: list[str], tmp_path, port: int) -> dict[str, str]:
    """What the container's processes get from the image and `-e`, with what only a container has made
    local: the /data volume is a folder of tmp_path, and the server binds 127.0.0.1 (the image's
    0.0.0.0 is inside the container's own network) on a free port (the image's 8765, published by -p)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    env.update(_image_env())
    env.update(dict(words[i + 1].split("=", 1) for i, w in enumerate(words) if w == "-e"))
    env.update(
        PATH=f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        MEMGATE_DATABASE__PATH=str(tmp_path / "volume" / "memgate.db"),
        MEMGATE_SERVER__HOST="127.0.0.1",
        MEMGATE_SERVER__PORT=str(port),
    )
    (tmp_path / "volume").mkdir()
    return env


@pytest.mark.parametrize("page", ["README", "hosts"])
def test_the_docker_run_line_the_docs_show_starts_a_server_that_asks_for_tokens(tmp_path, page):
    """No Docker engine runs here: the image's ENV and CMD and the line's -e flags go to the real
    entrypoint script, which sets up the tenants and execs the server; it answers /health and 401s /mcp."""
    import httpx2 as httpx

    words = _run_line(doc_text(page))
    assert words[:2] == ["docker", "run"] and words[-1] == "memgate" and "-v" in words
    assert words[words.index("-v") + 1] == "memgate:/data" and words[words.index("-p") + 1] == "8765:8765"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = _container_env(words, tmp_path, port)
    command = json.loads(_instructions()["CMD"][0])
    proc = subprocess.Popen(
        ["sh", str(ENTRYPOINT), *command], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.communicate()[1]
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.2)
        assert health.json() == {"status": "ok"}
        refused = httpx.post(f"http://127.0.0.1:{port}/mcp", json={}, timeout=10)
        assert refused.status_code == 401
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    for tenant in env["MEMGATE_TENANTS"].split(","):
        assert f"tools for {tenant}: " in err


def test_the_line_the_readme_showed_before_exits_at_once_naming_the_missing_setting(tmp_path):
    """`docker run -p 8765:8765 -v memgate:/data memgate`: no [http.auth], so the server cannot start."""
    words = shlex.split("docker run -p 8765:8765 -v memgate:/data memgate")
    env = _container_env(words, tmp_path, 8765)
    done = subprocess.run(
        ["sh", str(ENTRYPOINT), *json.loads(_instructions()["CMD"][0])],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1 and "Error: http.auth.issuer is required for HTTP transport." in done.stderr
