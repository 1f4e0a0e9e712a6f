"""A client nobody here wrote: the MCP Inspector's CLI lists and calls every default tool.

Against a real `memgate serve --demo` over stdio (both protocol eras) and the real HTTP
server with a bearer token, what the Inspector shows must be what the in-process
fastmcp.Client sees: names, descriptions, input schemas, annotations, and each tool's
text for one call. Its `--strict` check of schema portability must find no error.

The Inspector 2.x needs Node >= 22.19, and these machines have Node 20, so the test
installs both from the npm registry, pinned, into pytest's cache folder (once: later
runs reuse it; `pytest --cache-clear` starts afresh; with `-p no:cacheprovider`, a fresh
temporary folder per run). Without node and npm, or when the
install fails, it skips and says why. Every subprocess has a time limit. Deselect it
with `-m "not inspector"`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastmcp import Client
from jwt_helpers import make_keypair, make_token
from mcp_helpers import stdio_app
from remote_helpers import memgate_settings, serve_memgate

from memgate.manager import load_tool_definitions
from memgate.server.cli import cli

pytestmark = [pytest.mark.inspector, pytest.mark.anyio]

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
#: the Node the Inspector 2.x needs (engines: >= 22.19), as the npm registry's `node` package ships it
NODE = "node@22.23.3"
INSTALL_TIMEOUT_S = 600
CALL_TIMEOUT_S = 90
#: one call per default tool, the same through both clients (memory only reads: the runs share one database)
CALLS = {
    "lookup_entity": {"subject": "model:helios-rag", "predicate": "beir_ndcg10"},
    "search_memory": {"query": "helios nDCG@10 re-run"},
    "execute_query": {"query": "SELECT subject, predicate, content FROM entity_memory ORDER BY id"},
    "memory": {"command": "view", "path": "/memories"},
    "clarify": {"question": "Which dataset do you mean: BEIR or the support tickets?"},
    # an id no result gave (none exists): the gate refuses the same way each time, writing nothing
    "remember": {"content": "The August re-run found nDCG@10 of 0.78.", "evidence": ["chk_acme_9_9"]},
}
#: tools whose success needs state a one-shot Inspector run cannot hold (expand: an id issued in
#: this session's context window), or would change it; the Inspector must show the same refusal
REFUSED_CALLS = {
    "expand": {"memory_id": "ent_acme_helios_v1"},
    # memory_write refused without a write: the runs share one database
    "memory_write": {"command": "delete", "path": "/memories/never-written.md"},
}
ISSUER, AUDIENCE = "https://idp.example.test", "memgate-inspector"


def install_folder(config: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the Inspector is installed: pytest's cache folder, kept between runs; with the cache
    plugin off (`-p no:cacheprovider`, where `config` has no `cache`) a fresh temporary folder."""
    cache = getattr(config, "cache", None)
    if cache is None:
        return tmp_path_factory.mktemp("mcp-inspector")
    return Path(cache.mkdir("mcp-inspector-2.12.0"))


@pytest.fixture(scope="module")
def inspector(request, tmp_path_factory) -> list[str]:
    """[node, the inspector's script]: installed once into pytest's cache, or the test is skipped."""
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        pytest.skip(
            "node and npm are not on PATH: the MCP Inspector CLI test needs them to install "
            f"{INSPECTOR} (and {NODE}) from the npm registry"
        )
    folder = install_folder(request.config, tmp_path_factory)
    bin_dir = folder / "node_modules" / ".bin"
    done = folder / "installed"
    if not done.exists():
        try:
            installed = subprocess.run(
                [
                    npm,
                    "install",
                    "--prefix",
                    str(folder),
                    "--no-audit",
                    "--no-fund",
                    "--no-save",
                    "--loglevel=error",
                    NODE,
                    INSPECTOR,
                ],
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT_S,
                cwd=folder,
            )
        except subprocess.TimeoutExpired:
            pytest.skip(f"npm did not install {INSPECTOR} within {INSTALL_TIMEOUT_S}s")
        if installed.returncode != 0 or not (bin_dir / "mcp-inspector").exists():
            pytest.skip(f"npm could not install {INSPECTOR} and {NODE}: {installed.stderr.strip()[-500:]}")
        done.write_text(f"{NODE} {INSPECTOR}\n")
    return [str(bin_dir / "node"), str(bin_dir / "mcp-inspector")]


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("inspected") / "memgate.db"
    result = CliRunner().invoke(cli, ["--db", str(path), "init", "--demo"])
    assert result.exit_code == 0, result.output
    return path


def run_inspector(inspector: list[str], target: list[str], *args: str, home: Path) -> tuple[int, dict]:
    """One Inspector CLI run; its exit code and the JSON it printed (the result, or the error envelope)."""
    env = {
        "PATH": str(Path(inspector[0]).parent) + ":" + "/usr/bin:/bin",
        "HOME": str(home),
        "MCP_CATALOG_PATH": str(home / "catalog.json"),
    }
    done = subprocess.run(
        [*inspector, "--cli", "-q", "--format", "json", *target, *args],
        capture_output=True,
        text=True,
        timeout=CALL_TIMEOUT_S,
        env=env,
    )
    printed = (done.stdout or done.stderr).strip().splitlines()
    return done.returncode, json.loads(printed[-1]) if printed else {}


def stdio_target(db: Path) -> list[str]:
    # The Inspector passes a stdio server no environment of its own (-e would): all is in the arguments.
    return [sys.executable, "-m", "memgate", "--db", str(db), "serve", "--demo"]


async def in_process(db: Path, mode: str, calls: bool = True) -> tuple[dict, dict]:
    """What fastmcp.Client sees of `memgate serve --demo` (acme/jane/research-assistant): tools, call texts."""
    app, manager = stdio_app(db)
    try:
        async with Client(app, mode=mode) as c:
            tools = {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in await c.list_tools()}
            texts = {name: (await c.call_tool(name, args)).content[0].text for name, args in CALLS.items() if calls}
            for name, args in REFUSED_CALLS.items() if calls else ():
                refused = await c.call_tool(name, args, raise_on_error=False)
                assert refused.is_error, name
                texts[name] = refused.content[0].text
    finally:
        manager.close()
    return tools, texts


def shown(tool: dict) -> dict:
    return {key: tool.get(key) for key in ("name", "description", "inputSchema", "annotations", "outputSchema")}


def test_without_pytests_cache_the_install_goes_to_a_temporary_folder(tmp_path):
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "from test_inspector_cli import install_folder\n\n"
        "def test_folder(request, tmp_path_factory):\n"
        "    folder = install_folder(request.config, tmp_path_factory)\n"
        "    assert folder.is_dir() and tmp_path_factory.getbasetemp() in folder.parents\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            "--basetemp",
            str(tmp_path / "base"),
            str(probe),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        # this module's folder (the probe imports it) and tests/ (its helpers)
        env={**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in Path(__file__).resolve().parents[:2])},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_every_default_tool_has_a_call_here():
    assert {d["tool_name"] for d in load_tool_definitions()} <= set(CALLS) | set(REFUSED_CALLS)


@pytest.mark.parametrize("era, mode", [("legacy", "legacy"), ("modern", "auto")])
async def test_over_stdio_the_inspector_lists_what_the_in_process_client_sees(inspector, demo_db, tmp_path, era, mode):
    code, listed = run_inspector(
        inspector, stdio_target(demo_db), "--method", "tools/list", "--strict", "--protocol-era", era, home=tmp_path
    )
    assert code == 0, listed  # --strict: exit 6 on a schema-portability error
    tools, _ = await in_process(demo_db, mode, calls=False)
    seen = {t["name"]: t for t in listed["result"]["tools"]}
    assert set(seen) == set(tools)
    for name in tools:
        assert shown(seen[name]) == shown(tools[name]), name
        assert set(seen[name]["annotations"]) == {
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        }, name


async def test_over_stdio_the_inspector_calls_a_tool_and_reads_the_same_text(inspector, demo_db, tmp_path):
    _, texts = await in_process(demo_db, "legacy")
    name = "lookup_entity"
    code, result = run_inspector(
        inspector,
        stdio_target(demo_db),
        "--method",
        "tools/call",
        "--tool-name",
        name,
        "--tool-args-json",
        json.dumps(CALLS[name]),
        home=tmp_path,
    )
    assert code == 0 and result["result"]["isError"] is False, result
    assert result["result"]["content"][0]["text"] == texts[name]


async def test_over_http_with_a_bearer_token_the_inspector_lists_and_calls_every_tool_as_seen_in_process(
    inspector, demo_db, tmp_path
):
    keys = make_keypair()
    auth = {"issuer": ISSUER, "audience": AUDIENCE, "public_key": keys.public_pem}
    now = int(time.time())
    token = make_token(
        keys.private_pem,
        iss=ISSUER,
        aud=AUDIENCE,
        sub="jane",
        tenant="acme",
        agent="research-assistant",
        iat=now,
        exp=now + 600,
    )
    tools, texts = await in_process(demo_db, "auto")
    with serve_memgate(memgate_settings(demo_db, auth)) as url:
        target = [
            "--server-url",
            f"{url}/mcp",
            "--transport",
            "http",
            "--stored-auth-only",
            "--header",
            f"Authorization: Bearer {token}",
        ]
        code, listed = run_inspector(
            inspector, target, "--method", "tools/list", "--protocol-era", "modern", home=tmp_path
        )
        assert code == 0, listed
        seen = {t["name"]: t for t in listed["result"]["tools"]}
        assert {n: shown(t) for n, t in seen.items()} == {n: shown(t) for n, t in tools.items()}
        called = {}
        for name, args in CALLS.items():  # every default tool, the same server code as stdio's, faster to reach
            code, result = run_inspector(
                inspector,
                target,
                "--method",
                "tools/call",
                "--tool-name",
                name,
                "--tool-args-json",
                json.dumps(args),
                home=tmp_path,
            )
            assert code == 0 and result["result"]["isError"] is False, (name, result)
            called[name] = result["result"]["content"][0]["text"]
        for name, args in REFUSED_CALLS.items():
            code, result = run_inspector(
                inspector,
                target,
                "--method",
                "tools/call",
                "--tool-name",
                name,
                "--tool-args-json",
                json.dumps(args),
                home=tmp_path,
            )
            assert code == 5 and result["result"]["isError"] is True, (name, result)  # 5: an error result
            called[name] = result["result"]["content"][0]["text"]
        assert called == texts
        bad = [
            "--server-url",
            f"{url}/mcp",
            "--transport",
            "http",
            "--stored-auth-only",
            "--header",
            "Authorization: Bearer not-a-token",
        ]
        code, refused = run_inspector(inspector, bad, "--method", "tools/list", home=tmp_path)
    assert code == 3 and refused["error"]["code"] == "auth_required", refused  # a bad token: 401
