"""Install and schema management on Oracle: `memgate init`, the schema version, describe.

migrate() runs the DBA's files (with [database] admin_user) and the owner's files of
sql/oracle/install/ (install.py) and records the version last; check_schema() refuses a
database at another version with the command that fixes it. Runtime (sessions, retrieval,
execute_query) is backend.py's and session.py's.
"""

from __future__ import annotations

from typing import Any

import oracledb

from ...errors import SchemaMismatch
from ..base import InstallCheck
from ..settings import DatabaseSettings
from . import doctor, doctor_reads, install
from . import statements as q
from .connect import Accounts, password
from .errors import DSN_SETTING, codes, translate
from .session import DIALECT

__all__ = ["OracleSchema"]

_NO_TABLE = 942


class OracleSchema:
    """The schema of one Oracle database, through the owner (install) and the app (version checks)."""

    def __init__(self, settings: DatabaseSettings, accounts: Accounts):
        self.settings = settings
        self._accounts = accounts
        #: caps.query_temp_total_mb: the size of MEMGATE_QUERY's temporary tablespace (010_accounts.sql)
        self.query_temp_mb = 1024

    def migrate(self) -> tuple[int, int]:
        want = install.SCHEMA_VERSION
        if self.settings.admin_user:
            self._run_dba_files()
        owner = self._accounts.connect("owner")
        try:
            before = recorded_version(owner)
            if before > want:
                self._raise_newer(before)
            if before == want:
                return before, want
            with owner.cursor() as cur:
                for name in install.owner_files():
                    install.run_file(name, {}, lambda sql, name=name: run_ddl(cur, sql, name))
            owner.commit()
        finally:
            owner.close()
        return before, want

    def dba_values(self) -> dict[str, str]:
        """The value of every &&variable the DBA's files use (a test holds them to the files)."""
        return {
            "memgate_owner_password": password("owner"),
            "memgate_app_password": password("app"),
            "memgate_query_password": password("query"),
            "memgate_tablespace": self.settings.tablespace,
            "memgate_query_temp_mb": str(self.query_temp_mb),
            "memgate_query_temp_file": self.settings.query_temp_file,
        }

    def _run_dba_files(self) -> None:
        values = self.dba_values()
        admin = self._accounts.connect("admin")
        try:
            with admin.cursor() as cur:
                for name in install.DBA_FILES:
                    install.run_file(name, values, lambda sql, name=name: run_ddl(cur, sql, name))
        finally:
            admin.close()

    def check_schema(self) -> None:
        have, want = self.schema_version(), install.SCHEMA_VERSION
        if have == want:
            return
        if have == 0:
            raise SchemaMismatch(
                f"Oracle {self.settings.dsn} has no memgate schema (no schema version).",
                hint="Run `memgate init` with MEMGATE_ORACLE_OWNER_PASSWORD set.",
            )
        if have < want:
            raise SchemaMismatch(
                f"Oracle {self.settings.dsn} has schema version {have}; this memgate needs version {want}.",
                hint="Run `memgate init` to upgrade it.",
            )
        self._raise_newer(have)

    def _raise_newer(self, have: int) -> None:
        raise SchemaMismatch(
            f"Oracle {self.settings.dsn} has schema version {have}, newer than this memgate "
            f"knows ({install.SCHEMA_VERSION}).",
            hint=f"Upgrade memgate, or point {DSN_SETTING} at another database.",
        )

    def schema_version(self) -> int:
        conn = self._accounts.connect("app")
        try:
            return recorded_version(conn)
        finally:
            conn.close()

    def describe(self) -> dict[str, Any]:
        conn = self._accounts.connect("app")
        try:
            version, schema = conn.version, recorded_version(conn)
        finally:
            conn.close()
        mode = self._accounts.mode
        return {
            "backend": DIALECT,
            "dsn": self.settings.dsn,
            "mode": mode,
            "oracle_version": version,
            "schema_version": schema,
            "known_schema_version": install.SCHEMA_VERSION,
            "summary": f"Oracle {version}, python-oracledb {oracledb.__version__} {mode} mode, "
            f"pool {self.settings.pool_min}-{self.settings.pool_max}",
        }

    # -- `memgate doctor` ----------------------------------------------------------------------
    def install_checks(self) -> list[InstallCheck]:
        """What the install made, read as the owner and the query account (doctor_reads.py), judged by doctor.py."""
        return doctor.judge(doctor_reads.read(self._accounts, self.settings), doctor.expected())


def recorded_version(conn: oracledb.Connection) -> int:
    """memgate_schema's highest version; 0 when there is no such table (never installed)."""
    try:
        with conn.cursor() as cur:
            cur.execute(q.SCHEMA_VERSION.text)
            (version,) = cur.fetchone()
    except oracledb.Error as exc:
        if codes(exc)[0] == _NO_TABLE:
            return 0
        raise translate(exc) from exc
    return int(version or 0)


def install_error(exc: BaseException) -> str:
    """What the database said, for the operator running the install: the error's first line (Oracle's
    text, e.g. DRG-11309 inside ORA-29855, or memgate's own ORA-20020 naming the DEFINE to set)."""
    text = next((line.strip() for line in str(exc).splitlines() if line.strip()), "")
    return text[:300] or codes(exc)[1] or type(exc).__name__


def run_ddl(cur: oracledb.Cursor, sql: str, file: str) -> None:
    first = next(line for line in sql.splitlines() if line.strip() and not line.lstrip().startswith("--"))
    hint = "Fix the cause and run `memgate init` again: every install file is re-runnable."
    try:
        cur.execute(sql)
    except oracledb.Error as exc:
        raise SchemaMismatch(
            f"sql/oracle/install/{file}.sql failed at `{first.strip()[:80]}`: {install_error(exc)}", hint=hint
        ) from exc
    # A package or trigger that does not compile is still created, with a warning only
    # (python-oracledb's Cursor.warning, DPY-7000): an install must not pass over it.
    if cur.warning is not None:
        raise SchemaMismatch(
            f"sql/oracle/install/{file}.sql: `{first.strip()[:80]}` was created with "
            f"compilation errors ({cur.warning.full_code}); see USER_ERRORS",
            hint=hint,
        )
