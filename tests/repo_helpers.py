"""The files of a checkout as git sees them, for the tests that scan the repository's own files."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the quick subset, `python3 -m pytest -q -m quick` (under a minute on 2 quiet cores; tests/conftest.py
#: marks them): an install that passes it starts its CLI and demo, keeps tenants and scopes apart, and
#: serves MCP in process, over a real stdio subprocess and over HTTP with real tokens
QUICK = (
    "tests/project/test_docs.py",
    "tests/cli/test_cli.py",
    "tests/cli/test_cli_startup.py",
    "tests/backend/contract/test_tenant_isolation.py",
    "tests/backend/contract/test_scope_wall.py",
    "tests/claims/test_lookup_entity_mcp.py",
    "tests/server/test_server_stdio.py",
    "tests/server/test_http_auth.py",
)


def checkout_files(*patterns: str, root: Path = ROOT) -> list[str]:
    """The files git knows or would add under `root` (tracked plus untracked, what git ignores left
    out), that exist now, minus any inside a virtualenv (a folder holding pyvenv.cfg) whatever its
    name: a venv in the clone is never the project's source, whether .gitignore names it or not."""
    done = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z", *patterns],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    is_venv: dict[Path, bool] = {}

    def in_venv(rel: str) -> bool:
        for folder in Path(rel).parents[:-1]:  # every folder above the file, up to (not) the root
            if folder not in is_venv:
                is_venv[folder] = (root / folder / "pyvenv.cfg").is_file()
            if is_venv[folder]:
                return True
        return False

    return sorted({p for p in done.stdout.split("\0") if p and (root / p).is_file() and not in_venv(p)})
