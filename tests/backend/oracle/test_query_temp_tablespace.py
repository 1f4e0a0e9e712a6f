"""Oracle's twin of caps.query_temp_total_mb, read statically: MEMGATE_QUERY gets a temporary
tablespace of its own, of a fixed size, and a query that fills it is the too-big rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

oracledb = pytest.importorskip("oracledb")

from memgate.manager import QueryRejected
from memgate.manager.backend.oracle.install import script_units, substitute

ACCOUNTS = Path(__file__).resolve().parents[3] / "sql" / "oracle" / "install" / "010_accounts.sql"


def _temp_block() -> str:
    units = [u for u in script_units(ACCOUNTS.read_text(encoding="utf-8")) if "CREATE TEMPORARY TABLESPACE" in u]
    assert len(units) == 1, "one unit makes and assigns the query account's temporary tablespace"
    return units[0]


def test_the_query_account_gets_a_fixed_size_temporary_tablespace_of_its_own():
    block = substitute(_temp_block(), {"memgate_query_temp_mb": "1024"})
    assert re.search(r"CREATE TEMPORARY TABLESPACE memgate_query_temp TEMPFILE SIZE 1024M AUTOEXTEND OFF", block), block
    assert "ALTER USER memgate_query TEMPORARY TABLESPACE memgate_query_temp" in block
    # only "no privilege to create a tablespace" (Autonomous AI Database) is skipped; any other error stops the install
    assert re.search(r"IF SQLCODE != -1031 THEN\s+RAISE;", block)


def test_a_full_query_temporary_tablespace_is_the_too_big_rule_without_oracles_text():
    from oracledb.errors import _Error as DriverError

    from memgate.manager.backend.oracle.query import _query_error

    exc = oracledb.DatabaseError(
        DriverError("ORA-01652: unable to extend temp segment by 128 in tablespace MEMGATE_QUERY_TEMP", code=1652)
    )
    refused = _query_error(exc, 60)
    with pytest.raises(QueryRejected, match=r"^query refused \(rule too-big\): the query needed more temporary space"):
        raise refused
    assert "MEMGATE_QUERY_TEMP" not in refused.message and "ORA-" not in refused.message
