"""Small fixtures: a real SQLite file per test, the demo tenants, a manager, an in-process client."""

from __future__ import annotations

import os

import pytest
from backend_helpers import open_sqlite
from repo_helpers import QUICK

from memgate.manager import ACME, GLOBEX, MemoryManager, load_tool_definitions, seed_demo

# The server must never try to reach the network from tests. fastmcp reads this when it is
# first imported, by the test modules collected after this file (the manager never imports it).
os.environ.setdefault("FASTMCP_CHECK_FOR_UPDATES", "off")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.split("::", 1)[0] in QUICK:
            item.add_marker(pytest.mark.quick)


@pytest.fixture
def sqlite_path(tmp_path):
    return tmp_path / "memgate.db"


@pytest.fixture
def backend(sqlite_path):
    b = open_sqlite(sqlite_path)
    yield b
    b.close()


@pytest.fixture
def manager(backend):
    return MemoryManager(backend)


@pytest.fixture
def two_tenants(manager):
    """The demo data for acme and globex, with the default toolbox rows."""
    seed_demo(manager)
    for identity in (ACME, GLOBEX):
        manager.seed_tools(identity, load_tool_definitions())
    return ACME, GLOBEX
