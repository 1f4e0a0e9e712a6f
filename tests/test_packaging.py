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
    [wheel] = tmp_path.glob("memgate-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder, package in (("sql", "memgate/sql"), ("config", "memgate/config")):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in {".sql", ".json", ".toml"}:
                wanted = f"{package}/{path.relative_to(ROOT / folder).as_posix()}"
                assert wanted in names, f"{wanted} is missing from the wheel"
    assert {"memgate/manager/__init__.py", "memgate/server/cli/__init__.py", "memgate/toolbox/__init__.py"} <= names
    assert not any(n.startswith(("server/", "manager/", "toolbox/")) for n in names)
