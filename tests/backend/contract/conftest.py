"""The backend contract suite: the same tests on every backend, through the Backend/Session protocol only.

SQLite runs here always. Oracle runs when MEMGATE_ORACLE_DSN and the three account
passwords are set (config/oracle/compose.yaml starts a database that takes them from
config/oracle/test.env); otherwise its half of every test is skipped and pytest's `-ra`
summary prints why, so an Oracle path is never reported as tested when it was not.

On Oracle the schema is installed once per run (`migrate`, what `memgate init` does; with
MEMGATE_ORACLE_ADMIN_USER set it creates the accounts too), and every table the install
creates is emptied as the owner before each test - the walled tables and the operator tables
(tenant_mapping, server_secret, erasure_log, erasure_row, ...) alike - so each test starts from
the same empty database as a new SQLite file.
"""

from __future__ import annotations

import os

import pytest
from backend_helpers import oracle_install_tables

from memgate.manager import DatabaseSettings, open_backend

ORACLE_DSN = "MEMGATE_ORACLE_DSN"
ORACLE_PASSWORDS = ("MEMGATE_ORACLE_OWNER_PASSWORD", "MEMGATE_ORACLE_APP_PASSWORD", "MEMGATE_ORACLE_QUERY_PASSWORD")


def _oracle_skip_reason() -> str | None:
    if not os.environ.get(ORACLE_DSN):
        return f"{ORACLE_DSN} is not set: the Oracle half of the backend contract suite did not run"
    missing = [name for name in ORACLE_PASSWORDS if not os.environ.get(name)]
    if missing:
        return f"{', '.join(missing)} not set: the Oracle half of the backend contract suite did not run"
    return None


def oracle_settings() -> DatabaseSettings:
    return DatabaseSettings(
        backend="oracle", dsn=os.environ[ORACLE_DSN], admin_user=os.environ.get("MEMGATE_ORACLE_ADMIN_USER") or None
    )


@pytest.fixture(scope="session")
def oracle_schema():
    """Install (or upgrade) the Oracle schema once per test run."""
    backend = open_backend(oracle_settings())
    try:
        backend.migrate()
    finally:
        backend.close()


def _empty(backend) -> None:
    with backend.operator_session() as s:
        for table in oracle_install_tables():
            s.raw(f"DELETE FROM {backend.physical_table(table)}")


@pytest.fixture(params=["sqlite", "oracle"])
def backend_kind(request) -> str:
    if request.param == "oracle" and (reason := _oracle_skip_reason()):
        pytest.skip(reason)
    return request.param


@pytest.fixture
def open_database(backend_kind, sqlite_path, request):
    """Open the test database again, as a second process would: open_database() -> Backend."""
    opened = []
    if backend_kind == "oracle":
        request.getfixturevalue("oracle_schema")

    def open_again(**kwargs):
        settings = oracle_settings() if backend_kind == "oracle" else DatabaseSettings(path=sqlite_path)
        b = open_backend(settings, **kwargs)
        if backend_kind == "oracle" and not opened:
            _empty(b)
        opened.append(b)
        return b

    yield open_again
    for b in opened:
        b.close()


@pytest.fixture
def backend(open_database):
    return open_database()


def pytest_report_header(config):
    return (
        f"backend contract suite: sqlite runs; oracle: {_oracle_skip_reason() or 'runs on ' + os.environ[ORACLE_DSN]}"
    )
