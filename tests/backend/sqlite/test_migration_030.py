"""Migration 030 on a file from before it: each tenant's two lexical indexes are rebuilt with the templates'
merge settings (automerge 2, crisismerge 4), merged, and find what they found before."""

from __future__ import annotations

from backend_helpers import open_sqlite
from kb_helpers import ACME, GLOBEX, hashing_manager
from test_lexical_merge import _found, _index_names, _segments, _write

from memgate.manager.backend.sqlite import lexical

#: what the templates set, in each index's FTS5 config table
MERGE_SETTINGS = {"automerge": 2, "crisismerge": 4}


def _settings(conn, index: str) -> dict[str, int]:
    rows = conn.execute(f"SELECT k, v FROM {index}_config WHERE k IN ('automerge', 'crisismerge')").fetchall()
    return {k: int(v) for k, v in rows}


def _database_before_030(path) -> None:
    """A file as memgate made it before 030: indexes with FTS5's own merge settings, fragmented by
    one-row writes, recorded as built from the chunk template 2 and the recall template 1."""
    backend = open_sqlite(path)
    backend.migrate()
    for identity in (ACME, GLOBEX):
        hashing_manager(backend).recall_policy(identity)  # the tenant's first session makes its indexes
        with backend.unwalled_connection() as conn:
            for index in _index_names(backend, identity.tenant):
                conn.execute(f"DELETE FROM {index}_config WHERE k IN ('automerge', 'crisismerge')")
    backend.close()  # a connection keeps the settings it read: new ones read FTS5's defaults
    backend = open_sqlite(path)
    for identity, seed in ((ACME, 1), (GLOBEX, 2)):
        _write(hashing_manager(backend), identity, 30, seed=seed)
    with backend.unwalled_connection() as conn:
        conn.execute("UPDATE base_kb_lexical_index SET template_version = 2, recall_version = 1")
        conn.execute("DELETE FROM memgate_schema WHERE version = 30")
    backend.close()


def test_an_old_file_gets_the_merge_settings_and_merged_indexes_that_find_the_same_rows(sqlite_path):
    _database_before_030(sqlite_path)
    backend = open_sqlite(sqlite_path)
    try:
        with backend.unwalled_connection() as conn:
            for tenant in ("acme", "globex"):
                for index in _index_names(backend, tenant):
                    assert _settings(conn, index) == {}
        fragmented = {t: _segments(backend, t) for t in ("acme", "globex")}
        assert all(n > 4 for counts in fragmented.values() for n in counts)
        found = {i.tenant: _found(backend, i) for i in (ACME, GLOBEX)}
        slots = _index_names(backend, "acme"), _index_names(backend, "globex")
        backend.migrate()
        backend.check_schema()
        assert (_index_names(backend, "acme"), _index_names(backend, "globex")) == slots  # rebuilt in place
        with backend.unwalled_connection() as conn:
            versions = conn.execute("SELECT DISTINCT template_version, recall_version FROM base_kb_lexical_index")
            assert [tuple(r) for r in versions] == [(lexical.TEMPLATE_VERSION, lexical.RECALL_TEMPLATE_VERSION)]
            for tenant in ("acme", "globex"):
                for index in _index_names(backend, tenant):
                    assert _settings(conn, index) == MERGE_SETTINGS
        assert all(n == 1 for t in ("acme", "globex") for n in _segments(backend, t))  # built in one transaction
        assert {i.tenant: _found(backend, i) for i in (ACME, GLOBEX)} == found
    finally:
        backend.close()
