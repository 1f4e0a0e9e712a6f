"""`memgate dev-token`: HTTP on this machine without an identity provider, end to end, and only there.

The printed lines are run as printed: the serve command as a real `memgate serve --transport http`
process on 127.0.0.1, the curl line through sh with the printed token, against it."""

from __future__ import annotations

import json
import os
import shlex
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx2 as httpx  # fastmcp 4 ships httpx2 (the httpx API)
import jwt
import pytest
from mcp_helpers import log_rows
from remote_helpers import memgate_settings, post_mcp, serve_memgate

from memgate.server.dev_issuer import DEV_ISSUER, with_dev_issuer

ISSUER = "https://idp.example.test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def home(tmp_path):
    """A machine of its own: data and config directories under tmp_path, no MEMGATE_* from outside."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    env.update(
        HOME=str(tmp_path),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        FASTMCP_CHECK_FOR_UPDATES="off",
        MEMGATE_SERVER__PORT=str(_free_port()),
    )
    return env


def _memgate(env, *args, **extra):
    return subprocess.run(
        [sys.executable, "-m", "memgate", *args],
        env={**env, **extra},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def _printed(out: str) -> tuple[str, str, str, str]:
    """The token, and the serve, curl and Inspector lines as printed (after '#   ')."""
    token = next(line for line in out.splitlines() if line.startswith("export MEMGATE_TOKEN="))
    commands = [line[4:] for line in out.splitlines() if line.startswith("#   ")]
    serve, curl, inspector = commands
    return token.split("=", 1)[1], serve, curl, inspector


def test_the_printed_token_and_curl_line_work_against_the_printed_serve_command(home, tmp_path):
    assert _memgate(home, "init", "--demo").returncode == 0
    done = _memgate(home, "dev-token", "-t", "acme", "--user", "jane", "--agent", "research-assistant")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# LOCAL USE ONLY: ")
    assert [ln for ln in done.stdout.splitlines() if not ln.startswith("#")] == [
        ln for ln in done.stdout.splitlines() if ln.startswith("export MEMGATE_TOKEN=")
    ]  # every other line a comment: eval "$(memgate dev-token ...)" sets the variable
    token, serve, curl, inspector = _printed(done.stdout)
    assert serve == "memgate serve --transport http"
    port = home["MEMGATE_SERVER__PORT"]
    assert f"http://127.0.0.1:{port}/mcp" in curl and f"--server-url http://127.0.0.1:{port}/mcp" in inspector
    key = tmp_path / "data" / "memgate" / "dev-issuer" / "private.pem"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    claims = jwt.decode(token, options={"verify_signature": False})
    assert (claims["iss"], claims["sub"], claims["tenant"], claims["agent"]) == (
        DEV_ISSUER,
        "jane",
        "acme",
        "research-assistant",
    )
    assert claims["exp"] - claims["iat"] == 3600

    words = shlex.split(serve)
    server = subprocess.Popen(
        [sys.executable, "-m", "memgate", *words[1:]],
        env=home,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, "memgate serve did not come up"
            time.sleep(0.2)
        listed = subprocess.run(
            ["sh", "-c", curl], env={**home, "MEMGATE_TOKEN": token}, capture_output=True, text=True, timeout=60
        )
        tools = {t["name"] for t in json.loads(listed.stdout)["result"]["tools"]}
        assert {"lookup_entity", "search_memory", "remember"} <= tools
        called = post_mcp(f"http://127.0.0.1:{port}", token, arguments={"subject": "model:helios-rag"})
        assert called.status_code == 200 and "0.78" in called.text
        forged = post_mcp(f"http://127.0.0.1:{port}", token[:-4] + "AAAA")
        assert forged.status_code == 401
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    assert "accepting tokens of memgate dev-token's local issuer" in err and "for local use only" in err


@pytest.mark.parametrize(
    "setting, value, why",
    [
        ("MEMGATE_SERVER__HOST", "0.0.0.0", "server.host is 0.0.0.0, not a loopback address"),
        (
            "MEMGATE_SERVER__BASE_URL",
            "https://memgate.example.com",
            "server.base_url is https://memgate.example.com, not on a loopback host",
        ),
    ],
)
def test_dev_token_refuses_a_server_bound_beyond_loopback(home, tmp_path, setting, value, why):
    assert _memgate(home, "init", "--demo").returncode == 0
    done = _memgate(home, "dev-token", "-t", "acme", "--user", "jane", **{setting: value})
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(f"Error: memgate dev-token is for local use only, and {why}.")
    assert not (tmp_path / "data" / "memgate" / "dev-issuer").exists()


def test_dev_token_refuses_when_http_auth_names_an_issuer_of_its_own(home):
    assert _memgate(home, "init", "--demo").returncode == 0
    done = _memgate(home, "dev-token", "-t", "acme", "--user", "jane", MEMGATE_HTTP__AUTH__ISSUER=ISSUER)
    assert done.returncode == 1 and "configures a token issuer of its own" in done.stderr


def test_a_server_bound_beyond_loopback_ignores_the_local_key(home, monkeypatch, sqlite_path):
    for name in ("HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(name, home[name])
    assert _memgate(home, "--db", str(sqlite_path), "init", "--demo").returncode == 0
    assert _memgate(home, "--db", str(sqlite_path), "dev-token", "-t", "acme", "--user", "jane").returncode == 0
    local = memgate_settings(sqlite_path, {})
    assert with_dev_issuer(local).http.auth.issuer == DEV_ISSUER
    for server in ({"host": "0.0.0.0"}, {"base_url": "https://memgate.example.com"}):
        wide = local.model_copy(update={"server": local.server.model_copy(update=server)})
        assert with_dev_issuer(wide) == wide  # unchanged: serve then asks for [http.auth] as before
    served = _memgate(home, "--db", str(sqlite_path), "serve", "--transport", "http", MEMGATE_SERVER__HOST="0.0.0.0")
    assert served.returncode == 1 and "http.auth.issuer is required for HTTP transport" in served.stderr


def test_a_server_with_its_own_issuer_refuses_a_dev_token(home, monkeypatch, sqlite_path):
    from jwt_helpers import make_keypair

    for name in ("HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(name, home[name])
    assert _memgate(home, "--db", str(sqlite_path), "init", "--demo").returncode == 0
    token = _memgate(home, "--db", str(sqlite_path), "dev-token", "-t", "acme", "--user", "jane", "--token-only")
    assert token.returncode == 0 and token.stdout.count(".") == 2
    auth = {"issuer": ISSUER, "audience": "memgate", "public_key": make_keypair().public_pem}
    with serve_memgate(with_dev_issuer(memgate_settings(sqlite_path, auth))) as url:
        assert post_mcp(url, token.stdout.strip()).status_code == 401
    assert log_rows_of(sqlite_path) == []


def log_rows_of(sqlite_path: Path) -> list:
    from memgate.manager import DatabaseSettings, open_backend

    backend = open_backend(DatabaseSettings(path=sqlite_path), create=False)
    try:
        return log_rows(backend)
    finally:
        backend.close()
