"""A non-editable install carries every module, SQL and config file the code loads at run time."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from repo_helpers import checkout_files

ROOT = Path(__file__).resolve().parents[2]


def _clean_copy(dest: Path) -> list[str]:
    """Copy the files git knows or would add (no egg-info, build/, virtualenv or other ignored leftovers) to `dest`."""
    files = checkout_files()
    for rel in files:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel)
    return files


def test_the_wheel_holds_every_module_sql_and_config_file(tmp_path):
    # Built from a clean copy: a leftover egg-info's SOURCES.txt would otherwise supply files
    # that pyproject's package-data leaves out.
    source, out = tmp_path / "source", tmp_path / "wheel"
    files = _clean_copy(source)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    [wheel] = out.glob("memgate_mcp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = [
        f"memgate/{rel}"
        for rel in files
        if rel.startswith(("sql/", "config/"))
        and rel.endswith((".sql", ".json", ".toml"))
        or rel.startswith("server/views/")  # the MCP App pages (server/app_views.py)
    ]
    assert any(w.startswith("memgate/sql/sqlite/migrations/") for w in wanted) and wanted
    assert {"memgate/server/views/manifest.html", "memgate/server/views/bridge.js"} <= set(wanted)
    assert [w for w in wanted if w not in names] == [], "missing from the wheel"
    modules = [
        f"memgate/{rel.removeprefix('src/memgate/')}"
        for rel in files
        if rel.startswith(("server/", "manager/", "toolbox/", "src/memgate/")) and rel.endswith(".py")
    ]
    assert [m for m in modules if m not in names] == [], "a package is missing from pyproject's packages list"
    assert {"memgate/manager/__init__.py", "memgate/server/cli/__init__.py", "memgate/toolbox/__init__.py"} <= names
    assert not any(n.startswith(("server/", "manager/", "toolbox/")) for n in names)


def test_the_distribution_is_memgate_mcp_and_installs_the_memgate_command(tmp_path):
    """`memgate` on PyPI is another project: `pipx install memgate-mcp` / `uvx --from memgate-mcp memgate`."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    [wheel] = tmp_path.glob("memgate_mcp-*.whl")
    archive = zipfile.ZipFile(wheel)
    [dist_info] = {n.split("/")[0] for n in archive.namelist() if n.split("/")[0].endswith(".dist-info")}
    metadata = archive.read(f"{dist_info}/METADATA").decode()
    assert "\nName: memgate-mcp\n" in metadata
    scripts = archive.read(f"{dist_info}/entry_points.txt").decode()
    assert "memgate = memgate.server.cli:main" in scripts and "memgate-mcp = memgate.server.cli:main" in scripts
