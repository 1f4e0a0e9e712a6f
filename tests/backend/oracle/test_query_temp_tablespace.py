"""Oracle's twin of caps.query_temp_total_mb, read statically: MEMGATE_QUERY gets a temporary
tablespace of its own, of a fixed size, and a query that fills it is the too-big rule.

Where its tempfile goes (010_accounts.sql): a path when one is given; with `auto`, Oracle-managed
files when DB_CREATE_FILE_DEST is set (no file name), else a file next to the default temporary
tablespace's first tempfile; when neither can be read and Oracle refuses the unnamed file, the block
stops naming the DEFINE to set. Autonomous AI Database's ORA-01031 is the one error skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

oracledb = pytest.importorskip("oracledb")

from memgate.manager import DatabaseSettings, QueryRejected
from memgate.manager.backend.oracle.install import script_units, substitute

ACCOUNTS = Path(__file__).resolve().parents[3] / "sql" / "oracle" / "install" / "010_accounts.sql"


def _temp_block(temp_file: str = "auto") -> str:
    units = [u for u in script_units(ACCOUNTS.read_text(encoding="utf-8")) if "CREATE TEMPORARY TABLESPACE" in u]
    assert len(units) == 1, "one unit makes and assigns the query account's temporary tablespace"
    code = "\n".join(line for line in units[0].splitlines() if not line.lstrip().startswith("--"))
    return " ".join(substitute(code, {"memgate_query_temp_mb": "1024", "memgate_query_temp_file": temp_file}).split())


def test_the_query_account_gets_a_fixed_size_temporary_tablespace_of_its_own():
    block = _temp_block()
    assert "'CREATE TEMPORARY TABLESPACE memgate_query_temp TEMPFILE ' || CASE WHEN tempfile IS NOT NULL" in block
    assert "|| 'SIZE 1024M AUTOEXTEND OFF'" in block
    assert "ALTER USER memgate_query TEMPORARY TABLESPACE memgate_query_temp" in block
    # only "no privilege to create a tablespace" (Autonomous AI Database) is skipped; any other error stops the install
    assert block.endswith("EXCEPTION WHEN OTHERS THEN IF SQLCODE != -1031 THEN RAISE; END IF; END;")


def test_the_tempfile_is_the_given_path_or_omf_or_next_to_temp_and_otherwise_the_block_names_the_fix():
    assert "tempfile VARCHAR2(4000) := q'[/u02/oradata/mq01.dbf]';" in _temp_block("/u02/oradata/mq01.dbf")
    block = _temp_block()
    order = [
        "IF present = 0 THEN IF LOWER(tempfile) = 'auto' THEN tempfile := NULL;",
        "SELECT value FROM v$parameter WHERE name = 'db_create_file_dest'",  # OMF first
        "IF omf IS NULL THEN",
        "FROM dba_temp_files f, database_properties p WHERE p.property_name = 'DEFAULT_TEMP_TABLESPACE'",
        "IF sample LIKE '+%' THEN tempfile := REGEXP_SUBSTR(sample, '^[+][^/]+');",  # ASM: the disk group
        "|| 'memgate_query_temp01.dbf';",
        "'CREATE TEMPORARY TABLESPACE memgate_query_temp TEMPFILE '",
    ]
    at = [block.index(piece) for piece in order]
    assert at == sorted(at), "OMF is checked first, a file name taken otherwise, before the CREATE"
    refused = re.search(
        r"IF SQLCODE = -1031 OR tempfile IS NOT NULL THEN RAISE; END IF; RAISE_APPLICATION_ERROR\(-20020, (.*?), TRUE\);",
        block,
    )
    assert refused and "DEFINE memgate_query_temp_file" in refused.group(1) and "query_temp_file" in refused.group(1)


def test_the_tempfile_setting_is_auto_or_a_path_that_cannot_break_its_literal():
    assert DatabaseSettings(backend="oracle", dsn="h:1/s").query_temp_file == "auto"
    assert DatabaseSettings(backend="oracle", dsn="h:1/s", query_temp_file="+DATA").query_temp_file == "+DATA"
    for bad in ("/x/a]';DROP", "it's", "a\nb", "R&D", ""):
        with pytest.raises(ValueError, match="is not a file name"):
            DatabaseSettings(backend="oracle", dsn="h:1/s", query_temp_file=bad)


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
    # the advice is Oracle's own clause: Oracle has no LIMIT
    assert "FETCH FIRST n ROWS ONLY" in refused.message and "LIMIT" not in refused.message
    assert "FETCH FIRST n ROWS ONLY" in refused.hint


def test_an_install_statement_that_fails_says_what_the_database_said():
    """memgate init shows the operator the error's first line (here 010's own ORA-20020 with its fix)."""
    from oracledb.errors import _Error as DriverError

    from memgate.manager import SchemaMismatch
    from memgate.manager.backend.oracle.schema import run_ddl

    class _RefusingCursor:
        """python-oracledb's cursor where no database runs: execute raises what the server would."""

        warning = None

        def execute(self, sql):
            raise oracledb.DatabaseError(
                DriverError(
                    "ORA-20020: memgate: MEMGATE_QUERY_TEMP needs a file name here (no Oracle-managed files, "
                    "DB_CREATE_FILE_DEST): DEFINE memgate_query_temp_file = ...\nORA-06512: at line 44",
                    code=20020,
                )
            )

    with pytest.raises(SchemaMismatch, match="010_accounts.sql failed at") as raised:
        run_ddl(
            _RefusingCursor(), "-- the query account's temporary tablespace\nDECLARE\n  present NUMBER;", "010_accounts"
        )
    assert raised.value.message.startswith(
        "sql/oracle/install/010_accounts.sql failed at `DECLARE`: ORA-20020: memgate: MEMGATE_QUERY_TEMP needs a file name"
    )
    assert "ORA-06512" not in raised.value.message
