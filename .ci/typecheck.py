"""Type-check memgate.manager, .toolbox, .server and bench/ with mypy against a committed baseline that may only shrink.

    python3 .ci/typecheck.py            # fail on a finding the baseline does not hold, or a fixed one it still does
    python3 .ci/typecheck.py --update   # rewrite the baseline (only ever to remove lines)

The import package `memgate` is assembled from several folders (pyproject's package-dir), which mypy cannot
follow through the editable install, so the check runs on a temporary tree of symlinks laid out as installed.
Findings are compared without line numbers, so moving code does not count as a new finding.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / ".ci" / "mypy-baseline.txt"
PACKAGES = ("memgate.manager", "memgate.toolbox", "memgate.server", "bench")
#: import package folder -> source folder, as pyproject's [tool.setuptools] package-dir maps them
MAPPED = {"server": "server", "manager": "manager", "toolbox": "toolbox", "sql": "sql", "config": "config"}


def _findings(tree: Path) -> list[str]:
    args = [sys.executable, "-m", "mypy", "--no-error-summary", "--hide-error-context", "--no-color-output"]
    args += ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(ROOT / ".mypy_cache")]
    for package in PACKAGES:
        args += ["-p", package]
    done = subprocess.run(args, cwd=tree, capture_output=True, text=True, env={"MYPYPATH": str(tree), "PATH": ""})
    if done.returncode not in (0, 1):
        sys.exit(f"mypy could not run:\n{done.stdout}{done.stderr}")
    found = []
    for line in done.stdout.splitlines():
        match = re.match(r"^((?:memgate|bench)/[^:]+):\d+(?::\d+)?: (error|note): (.*)$", line)
        if match and match.group(2) == "error":
            found.append(f"{match.group(1)}: {match.group(3)}")
    return sorted(found)


def _tree(tmp: Path) -> Path:
    pkg = tmp / "memgate"
    pkg.mkdir()
    for item in (ROOT / "src" / "memgate").iterdir():
        (pkg / item.name).symlink_to(item)
    for name, folder in MAPPED.items():
        (pkg / name).symlink_to(ROOT / folder)
    (tmp / "bench").symlink_to(ROOT / "bench")  # the benchmarks import memgate as installed
    return tmp


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        found = _findings(_tree(Path(tmp)))
    if "--update" in sys.argv:
        BASELINE.write_text("".join(f"{line}\n" for line in found))
        print(f"baseline: {len(found)} findings written to {BASELINE.relative_to(ROOT)}")
        return 0
    known = [line for line in BASELINE.read_text().splitlines() if line] if BASELINE.exists() else []
    new = sorted((Counter(found) - Counter(known)).elements())
    fixed = sorted((Counter(known) - Counter(found)).elements())
    for line in new:
        print(f"new type error: {line}")
    for line in fixed:
        print(f"fixed (remove it from {BASELINE.name} with --update): {line}")
    print(f"mypy: {len(found)} findings, {len(known)} in the baseline, {len(new)} new, {len(fixed)} fixed")
    return 1 if new or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
