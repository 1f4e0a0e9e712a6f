"""What a clone carries: source and text, no stray binaries, nothing a newcomer downloads for nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: a tracked file larger than this is a mistake (the biggest text file, a benchmark's JSON, is < 100 KB)
MAX_TRACKED_BYTES = 1_000_000
ARCHIVES = (".whl", ".zip", ".tar", ".tar.gz", ".tgz", ".gz", ".bz2", ".xz", ".7z", ".jar", ".egg", ".rar")


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in out.decode().split("\0") if name]


def test_no_tracked_file_is_over_1_mb():
    big = [(n, (ROOT / n).stat().st_size) for n in _tracked() if (ROOT / n).is_file()]
    assert [(n, size) for n, size in big if size > MAX_TRACKED_BYTES] == []


def test_no_wheel_or_archive_is_tracked():
    assert [n for n in _tracked() if n.lower().endswith(ARCHIVES)] == []


def test_the_tracked_tree_is_under_3_mb():
    total = sum((ROOT / n).stat().st_size for n in _tracked() if (ROOT / n).is_file())
    assert total < 3_000_000, f"the tracked files add up to {total:,} bytes"
