"""What `memgate forget` purges after the rows, one step at a time, each proven by the bytes it alone removes.

SQLite keeps deleted text beside the rows: in the free space of pages (unless `secure_delete` zeroes
it), in FTS5 segments (until the index is merged), and in old page images in the WAL (until it is
checkpointed and truncated). This machine's SQLite is built with SECURE_DELETE on by default, which
would hide the first two from a test; these tests run as on a build without it (python.org's and most
distributions' builds): every connection memgate opens starts with `secure_delete` off, as there. So
the erasing connection's own `PRAGMA secure_delete = ON`, its FTS merge, its VACUUM and its WAL
truncate each have something only they remove, and no test runs one of them for the product.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from backend_helpers import operator_rows
from cli_helpers import cli_runner
from memory_helpers import seed
from retention_helpers import file_hits, fts_matches, table_hits

from memgate.manager import Identity

JANE_MARK = "qzjanepurge6161"
BOB_MARK = "qzbobpurge2727"
DRAFT_MARK = "qzdraftpurge9393"
TENANT = "shop"
JANE = Identity(tenant=TENANT, user="jane", agent="helper", thread="t-jane", principal="test:jane")
BOB = Identity(tenant=TENANT, user="bob", agent="helper", thread="t-bob", principal="test:bob")


@pytest.fixture(autouse=True)
def secure_delete_off_by_default(monkeypatch):
    """Every SQLite connection opens as on a build without SQLITE_SECURE_DELETE."""
    connect = sqlite3.connect

    def without_secure_delete(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.execute("PRAGMA secure_delete = OFF")
        return conn

    monkeypatch.setattr(sqlite3, "connect", without_secure_delete)


def _write(manager, who: Identity, marker: str) -> None:
    """Rows written once each (no update frees space that held the marker)."""
    manager.record_turn(who, "user", f"my note {marker}")
    manager.ingest_text(
        who,
        title=f"notes {marker}",
        text=f"The {marker} plan. " * 30,
        source_uri=f"memo://{who.user}",
        user_id=who.user,
    )


@pytest.fixture
def shop(manager):
    seed(manager, Identity(tenant=TENANT, principal="test:init"))
    for who, marker in ((JANE, JANE_MARK), (BOB, BOB_MARK)):
        _write(manager, who, marker)
    return manager


def _wal(path: Path) -> Path:
    return Path(f"{path}-wal")


def test_without_vacuum_the_space_the_erasure_freed_holds_no_byte_of_it(shop, sqlite_path, monkeypatch):
    """`--no-vacuum`: what the erasure deleted is zeroed as it goes (secure_delete), the index merged,
    the WAL truncated; the server's connections stay open all the while (they hold the WAL)."""
    manager = shop
    assert sqlite3.connect(sqlite_path).execute("PRAGMA secure_delete").fetchone() == (0,)
    assert file_hits(sqlite_path, JANE_MARK) > 0
    out = cli_runner(sqlite_path, monkeypatch)("forget", "-t", TENANT, "--user", "jane", "--yes", "--no-vacuum")
    assert "erased" in out.output
    assert table_hits(sqlite_path, JANE_MARK) == {} and fts_matches(sqlite_path, JANE_MARK) == 0
    assert file_hits(sqlite_path, JANE_MARK) == 0
    assert file_hits(sqlite_path, BOB_MARK) > 0 and fts_matches(sqlite_path, BOB_MARK) > 0
    assert operator_rows(manager.backend, "conversation_memory", "WHERE user_id = 'bob'")


def test_vacuum_drops_what_earlier_ordinary_writes_left_in_free_space(shop, sqlite_path, monkeypatch):
    """Jane rewrote her file before the erasure: the ordinary write left the first draft in free space,
    where no row holds it any more; only the VACUUM after the erasure removes it."""
    manager = shop
    with manager.memory_store_files(JANE, "user:jane") as files:
        files.put("/memories/draft.md", f"first draft {DRAFT_MARK} " * 40)
    with manager.memory_store_files(JANE, "user:jane") as files:
        files.put("/memories/draft.md", "second draft")
    assert table_hits(sqlite_path, DRAFT_MARK) == {}
    assert file_hits(sqlite_path, DRAFT_MARK) > 0, "the rewrite left nothing behind: this proves nothing"
    cli_runner(sqlite_path, monkeypatch)("forget", "-t", TENANT, "--user", "jane", "--yes")
    assert file_hits(sqlite_path, DRAFT_MARK) == 0
    assert file_hits(sqlite_path, JANE_MARK) == 0
    assert file_hits(sqlite_path, BOB_MARK) > 0


def test_the_wal_is_truncated_while_the_servers_connections_stay_open(shop, sqlite_path, monkeypatch):
    manager = shop
    assert _wal(sqlite_path).stat().st_size > 0
    with manager.backend.session(BOB) as s:  # a server connection, used and back in its pool
        s.fetch_all("entity_versions", subject="x", predicate="y")
    cli_runner(sqlite_path, monkeypatch)("forget", "-t", TENANT, "--user", "jane", "--yes")
    assert _wal(sqlite_path).exists() and _wal(sqlite_path).stat().st_size == 0
    assert file_hits(sqlite_path, JANE_MARK) == 0


def test_the_index_is_merged_so_no_segment_keeps_the_erased_words(shop, sqlite_path, monkeypatch):
    """A deleted row of an external-content FTS5 index only adds a delete marker; the merge rewrites
    the segments without its postings. Neither the VACUUM nor the WAL truncate would."""
    cli_runner(sqlite_path, monkeypatch)("forget", "-t", TENANT, "--user", "jane", "--yes")
    shadow = {t: n for t, n in table_hits(sqlite_path, JANE_MARK).items() if t.startswith("base_kb_fts_")}
    assert shadow == {}
    assert fts_matches(sqlite_path, BOB_MARK) > 0
