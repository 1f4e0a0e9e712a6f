"""A non-editable install carries every SQL and config file the code loads at run time."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_holds_every_sql_and_config_file(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    [wheel] = tmp_path.glob("memgate_mcp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder, package in (("sql", "memgate/sql"), ("config", "memgate/config")):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in {".sql", ".json", ".toml"}:
                wanted = f"{package}/{path.relative_to(ROOT / folder).as_posix()}"
                assert wanted in names, f"{wanted} is missing from the wheel"
    assert {"memgate/manager/__init__.py", "memgate/server/cli/__init__.py", "memgate/toolbox/__init__.py"} <= names
    assert not any(n.startswith(("server/", "manager/", "toolbox/")) for n in names)


def test_the_distribution_is_memgate_mcp_and_installs_the_memgate_command(tmp_path):
    """`memgate` on PyPI is another project: `pipx install memgate-mcp` / `uvx --from memgate-mcp memgate`."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    [wheel] = tmp_path.glob("memgate_mcp-*.whl")
    archive = zipfile.ZipFile(wheel)
    [dist_info] = {n.split("/")[0] for n in archive.namelist() if n.split("/")[0].endswith(".dist-info")}
    metadata = archive.read(f"{dist_info}/METADATA").decode()
    assert "\nName: memgate-mcp\n" in metadata
    scripts = archive.read(f"{dist_info}/entry_points.txt").decode()
    assert "memgate = memgate.server.cli:main" in scripts and "memgate-mcp = memgate.server.cli:main" in scripts
