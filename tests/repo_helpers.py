"""The files of a checkout as git sees them, for the tests that scan the repository's own files."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
