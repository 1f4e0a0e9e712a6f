"""`memgate doctor`'s post-install checks, run against the installed schema: none may fail.

SQLite: its schema check says it all, so there are none. Oracle (MEMGATE_ORACLE_DSN set): every
package, trigger and view VALID, every VPD policy enabled, the Oracle Text index VALID (its
FILTER BY accepted: DRG-11309 settles here), the context namespaces bound and handed over; as the
query account, its synonyms (015), its temporary tablespace (010: OMF or the file it chose), and
an identity handed over seen by a query session and gone once taken back (CLEAR_CONTEXT by client
identifier settles here). This is where the install's documentation-only assumptions meet a
database first.
"""

from __future__ import annotations


def test_no_install_check_fails_on_a_fresh_install(backend):
    checks = backend.install_checks()
    failing = [f"{c.name}: {c.detail} Fix: {c.fix}" for c in checks if c.ok is False]
    assert failing == []
    if backend.dialect == "sqlite":
        assert checks == []
    else:
        assert {
            "install objects",
            "VPD policies",
            "text index KB_CHUNK_TEXT_IX",
            "context namespaces",
            "query synonyms",
            "query temporary tablespace",
            "query identity hand-over",
        } <= {c.name for c in checks}
