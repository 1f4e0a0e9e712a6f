"""A newcomer's first hour, as CI meets it: the README's commands run as written, from a clean copy of the
checkout, in a fresh virtualenv: the install-and-run line, the pipx and uvx routes, the demo in order, and
the local HTTP recipe (`memgate dev-token`, a real `memgate serve --transport http`, the printed curl line).

Slow (it installs memgate and its dependencies from the package index, as a newcomer does): marked `slow`,
left out of `-m quick`, run by the README's full test command. pipx and uv are installed into the fresh
virtualenv when the machine has neither, so their lines run as written too.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from doc_helpers import README, doc_text
from repo_helpers import ROOT, checkout_files

pytestmark = pytest.mark.slow

#: one command's bound, an install's included (the package index may be slow)
STEP_TIMEOUT = 900


def _block(text: str, heading: str) -> list[str]:
    """The commands of the first code block under `heading`, each without its trailing comment."""
    section = text.split(heading, 1)[1]
    block = section.split("```", 2)[1].split("\n", 1)[1]
    return [re.split(r"\s+# ", line)[0].strip() for line in block.splitlines() if line.strip()]


class Newcomer:
    """A shell in the checkout's copy, with the fresh virtualenv's bin first on PATH and its own data."""

    def __init__(self, tmp_path: Path):
        self.src = tmp_path / "memgate"
        for rel in checkout_files():
            (self.src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, self.src / rel)
        self.venv = tmp_path / "venv"
        subprocess.run(["python3", "-m", "venv", str(self.venv)], check=True, timeout=STEP_TIMEOUT)
        config = tmp_path / "memgate.toml"
        config.write_text("")  # no settings of the machine's own user reach the newcomer's memgate
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMGATE_", "VIRTUAL_ENV", "PYTHON"))}
        outer = str(Path(sys.executable).parent)  # the test's own virtualenv stays out of the newcomer's PATH
        path = [p for p in self.env.get("PATH", "").split(os.pathsep) if p and p != outer]
        self.env.update(
            PATH=os.pathsep.join([str(self.venv / "bin"), *path]),
            XDG_DATA_HOME=str(tmp_path / "data"),
            MEMGATE_CONFIG=str(config),
            PIPX_HOME=str(tmp_path / "pipx"),
            PIPX_BIN_DIR=str(tmp_path / "pipx" / "bin"),
            FASTMCP_CHECK_FOR_UPDATES="off",
        )

    def run(self, command: str, **env: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            ["sh", "-c", command],
            cwd=self.src,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=STEP_TIMEOUT,
            stdin=subprocess.DEVNULL,  # a stdio server sees its host hang up, and stops
        )
        assert done.returncode == 0, f"`{command}` exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        return done

    def has(self, tool: str) -> bool:
        return shutil.which(tool, path=self.env["PATH"]) is not None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_readmes_commands_run_as_written_in_a_fresh_virtualenv(tmp_path):
    me = Newcomer(tmp_path)
    run_line, test_line = README.read_text().split("```", 2)[1].strip().splitlines()
    served = me.run(run_line)  # installs the checkout, loads the demo, serves stdio until stdin ends
    assert "over stdio as tenant acme" in served.stderr
    assert Path(me.env["XDG_DATA_HOME"], "memgate", "memgate.db").is_file()
    assert test_line.endswith("python3 -m pytest -q")  # this suite: CI runs it (tests/project/test_docs.py)

    # Install: pipx and uvx, from the checkout
    install = _block(README.read_text(), "## Install")
    assert install == ["pipx install .", "uvx --from . memgate serve --demo"]
    for tool in ("pipx", "uv"):
        if not me.has(tool):
            me.run(f"python3 -m pip install -q {tool}")
    me.run(install[0])
    assert "memgate, version" in me.run(f"{me.env['PIPX_BIN_DIR']}/memgate --version").stdout
    assert "over stdio as tenant acme" in me.run(install[1]).stderr

    # Try the demo, in order, on a database of its own
    fresh = {"XDG_DATA_HOME": str(tmp_path / "demo-data")}
    demo = _block(README.read_text(), "## Try the demo")
    assert demo[0] == "memgate init --demo" and len(demo) >= 6
    for step in demo:
        shown = me.run(step, **fresh)
    assert "memories (" in shown.stdout and "left out (" in shown.stdout  # the last step shows the window

    # HTTP on this machine: memgate dev-token, as docs/hosts.md (linked from the README) gives it
    recipe = _block(doc_text("hosts"), "## Trying HTTP on this machine: memgate dev-token")
    assert recipe[0] == "memgate init --demo" and recipe[1].startswith('eval "$(memgate dev-token')
    assert recipe[2] == "memgate serve --transport http"
    local = {**fresh, "MEMGATE_SERVER__PORT": str(_free_port())}
    me.run(recipe[0], **local)
    printed = me.run(recipe[1].removeprefix('eval "$(').removesuffix(')"'), **local).stdout
    token = me.run(f'{recipe[1]} && printf %s "$MEMGATE_TOKEN"', **local).stdout.splitlines()[-1]
    curl = next(line[4:] for line in printed.splitlines() if line.startswith("#   curl "))
    server = subprocess.Popen(
        ["sh", "-c", f"exec {recipe[2]}"],  # exec: the server gets the terminate, not only sh
        cwd=me.src,
        env={**me.env, **local},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        health = f"http://127.0.0.1:{local['MEMGATE_SERVER__PORT']}/health"
        deadline = time.monotonic() + 120
        while subprocess.run(["curl", "-sf", health], capture_output=True).returncode != 0:
            assert server.poll() is None and time.monotonic() < deadline, "memgate serve did not come up"
            time.sleep(0.5)
        listed = me.run(curl, **local, MEMGATE_TOKEN=token)
        tools = {t["name"] for t in json.loads(listed.stdout)["result"]["tools"]}
        assert {"lookup_entity", "search_memory", "remember"} <= tools
    finally:
        server.terminate()
        server.communicate(timeout=60)
