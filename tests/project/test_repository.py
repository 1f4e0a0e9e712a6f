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


def test_the_checked_out_tree_is_under_5_mb():
    """A guard on slow growth of the files a clone checks out: 4.1 MB of source, docs and tests once
    conversations, the stricter gate, export and import, and calibrated search landed (3.0 MB before)."""
    total = sum((ROOT / n).stat().st_size for n in _tracked() if (ROOT / n).is_file())
    assert total < 5_000_000, f"the tracked files add up to {total:,} bytes"


#: what people call the virtualenv they make inside a clone
VENV_NAMES = ("venv", ".venv", "env", ".env", "ENV", ".venv-3.11", "venv311")


def _make_venv(folder: Path) -> None:
    (folder / "lib" / "site-packages" / "big").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n")
    # what test_layout would trip over: an issue number in a comment, a path that is not in the repo
    cited = "/".join(("manager", "nowhere.py"))  # joined: this file's own comments are scanned too
    (folder / "lib" / "site-packages" / "big" / "mod.py").write_text(f"# fixed in issue 12, see {cited}\n")


def test_a_virtualenv_in_the_clone_by_any_name_is_ignored_and_left_out_of_every_scan(tmp_path):
    from repo_helpers import checkout_files

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text((ROOT / ".gitignore").read_text())
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "app.py").write_text("x = 1\n")
    for name in (*VENV_NAMES, "my-own-env"):
        _make_venv(tmp_path / name)
    ignored = subprocess.run(
        ["git", "check-ignore", *[f"{n}/pyvenv.cfg" for n in VENV_NAMES]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert sorted(ignored) == sorted(f"{n}/pyvenv.cfg" for n in VENV_NAMES)
    # a name .gitignore cannot guess is still no source: the scans skip any folder holding pyvenv.cfg
    assert checkout_files(root=tmp_path) == [".gitignore", "server/app.py"]
