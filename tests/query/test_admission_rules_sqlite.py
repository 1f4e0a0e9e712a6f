"""The admission rules both dialects share, each through the SQLite backend: execute_query on a real
SQLite file refuses a query that breaks one rule alone, naming that rule, and answers its lawful
neighbour. The Oracle half of the same rules is tests/backend/oracle/test_oracle_offline.py.

The size rule is SQLite's call limits: printf (and format, where an allowlist names it) takes a
width or precision only as a number written in the query, at most FORMAT_WIDTH_MAX (a `%*d` whose
width came from a column could ask SQLite for gigabytes in one call, which no deadline interrupts).
"""

from __future__ import annotations

import pytest

from memgate.manager import QueryRejected
from memgate.manager.backend.sqlite.dialect import FORMAT_WIDTH_MAX
from memgate.manager.backend.sqlite.dialect import SQLITE_QUERY_DIALECT as SQLITE
from memgate.manager.demo.dataset import ACME
from memgate.manager.query.admission import admit_query

REFUSED = [
    # size: printf's and format's widths and precisions
    ("SELECT printf('%2000d', 1)", "size"),
    ("SELECT printf('%.5000f', 1.5)", "size"),
    ("SELECT printf('%*d', 5000, 1)", "size"),
    ("SELECT printf('%d%*d', 1, 5000, 2)", "size"),  # the * takes the argument after the earlier conversions'
    ("SELECT printf('%%%*d', 5000, 1)", "size"),  # %% takes no argument
    ("SELECT printf(content, 1) FROM entity_memory", "size"),  # a format that is no literal
    ("SELECT printf('%*d', length(content), 1) FROM entity_memory", "size"),  # a width that is no literal
    ("SELECT printf('%*d', '999', 1)", "size"),  # nor text, however small
    # qualifier and schema: a name qualified by what the query does not define, or by a schema
    ("SELECT nosuch.content FROM entity_memory", "qualifier"),
    ("SELECT e.content FROM entity_memory AS x", "qualifier"),
    ("SELECT main.entity_memory.content FROM entity_memory", "schema"),
    # snapshot: a read as of another moment
    ("SELECT content FROM entity_memory FOR SYSTEM_TIME AS OF '2026-01-01'", "snapshot"),
    # function: a typed node from syntax that no allowlist names
    ("SELECT CURRENT_USER", "function"),
]

ANSWERED = [
    f"SELECT printf('%-{FORMAT_WIDTH_MAX}s|', 'x') AS s",
    f"SELECT printf('%*d', -{FORMAT_WIDTH_MAX}, 1) AS s",
    f"SELECT printf('%%%*d', {FORMAT_WIDTH_MAX}, 1) AS s",
    "SELECT s.content FROM (SELECT content FROM entity_memory) AS s",
    "WITH c AS (SELECT content FROM entity_memory) SELECT c.content FROM c",
    "SELECT e.content FROM entity_memory AS e",
    "SELECT entity_memory.content FROM entity_memory",
]


@pytest.mark.parametrize("sql, rule", REFUSED)
def test_each_rule_broken_alone_is_refused_by_the_sqlite_backend_naming_it(manager, two_tenants, sql, rule):
    with pytest.raises(QueryRejected, match=rf"^query refused \(rule {rule}\): ") as refused:
        manager.execute_query(ACME, sql)
    assert refused.value.rule == rule


@pytest.mark.parametrize("sql", ANSWERED)
def test_the_lawful_neighbour_of_each_rule_answers(manager, two_tenants, sql):
    out = manager.execute_query(ACME, sql, max_rows=1)
    assert out.text.startswith("rows: 1 |"), out.text


def test_indexed_by_names_an_index_not_a_table():
    admitted = admit_query(
        "SELECT id FROM entity_memory INDEXED BY entity_ix", dialect=SQLITE, allowed_views={"entity_memory"}
    )
    assert admitted.tables == {"entity_memory"}


@pytest.mark.parametrize("value", [None, 42, b"SELECT 1"])
def test_a_query_that_is_not_text_is_refused_as_syntax(value):
    with pytest.raises(QueryRejected, match=r"^query refused \(rule syntax\): it could not be parsed as SQLite SQL"):
        admit_query(value, dialect=SQLITE, allowed_views={"entity_memory"})
