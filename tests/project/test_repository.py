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


def test_a_clone_without_history_downloads_under_3_mb():
    """What `git clone --depth 1` transfers: one pack of HEAD's tree (issue 20: "the clone is under
    3 MB without history"; the accidental 10 MB wheel was what every clone downloaded)."""
    objects = subprocess.run(
        ["git", "rev-list", "--objects", "--no-object-names", "HEAD^{tree}"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    pack = subprocess.run(
        ["git", "pack-objects", "--stdout", "-q"], cwd=ROOT, input=objects, capture_output=True, check=True
    ).stdout
    assert len(pack) < 3_000_000, f"a shallow clone's pack is {len(pack):,} bytes"


def test_the_checked_out_tree_is_under_4_mb():
    """A guard on slow growth of the files a clone checks out (3.0 MB of source, docs and tests today)."""
    total = sum((ROOT / n).stat().st_size for n in _tracked() if (ROOT / n).is_file())
    assert total < 4_000_000, f"the tracked files add up to {total:,} bytes"
