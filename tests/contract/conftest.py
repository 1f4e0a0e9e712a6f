"""The backend contract suite: the same tests on every backend, through the Backend/Session protocol only.

SQLite runs here always. Oracle runs when MEMGATE_ORACLE_DSN is set and an Oracle
backend exists; otherwise its half of every test is skipped, and pytest's `-ra`
summary prints why, so an Oracle path is never reported as tested when it was not.
"""

from __future__ import annotations

import os

import pytest

from memgate.manager import DatabaseSettings, open_backend

ORACLE_DSN = "MEMGATE_ORACLE_DSN"


def _oracle_skip_reason() -> str:
    if not os.environ.get(ORACLE_DSN):
        return f"{ORACLE_DSN} is not set: the Oracle half of the backend contract suite did not run"
    return "memgate has no Oracle backend yet: the Oracle half of the backend contract suite did not run"


@pytest.fixture(params=["sqlite", "oracle"])
def backend_kind(request) -> str:
    if request.param == "oracle":
        pytest.skip(_oracle_skip_reason())
    return request.param


@pytest.fixture
def open_database(backend_kind, sqlite_path):
    """Open the test database again, as a second process would: open_database() -> Backend."""
    opened = []

    def open_again(**kwargs):
        b = open_backend(DatabaseSettings(path=sqlite_path), **kwargs)
        opened.append(b)
        return b

    yield open_again
    for b in opened:
        b.close()


@pytest.fixture
def backend(open_database):
    return open_database()


def pytest_report_header(config):
    return f"backend contract suite: sqlite runs; oracle: {_oracle_skip_reason()}"
