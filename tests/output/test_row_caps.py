"""caps.rows: what a call asked for, never below one row and never above caps.max_rows."""

from __future__ import annotations

import pytest

from memgate.manager import CapsSettings, MemoryManager
from memgate.manager.demo.dataset import ACME


@pytest.mark.parametrize("asked, cap", [(None, 5), (-3, 1), (0, 1), (1, 1), (7, 7), (10, 10), (11, 10), (10**9, 10)])
def test_the_row_cap_is_clamped_between_one_and_max_rows(asked, cap):
    assert CapsSettings(default_rows=5, max_rows=10).rows(asked) == cap


@pytest.mark.parametrize("asked", [0, -1])
def test_execute_query_asked_for_no_rows_still_shows_one_and_says_more_exist(backend, two_tenants, asked):
    manager = MemoryManager(backend, CapsSettings(default_rows=5, max_rows=10))
    out = manager.execute_query(ACME, "SELECT id FROM entity_memory ORDER BY id", max_rows=asked)
    assert out.text.startswith("rows: 1 | more exist: yes | row cap: 1 | tokens: ")
    assert out.rows == 1
