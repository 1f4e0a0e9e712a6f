import random
import sqlite3

import pytest

from memgate.manager.backend.sqlite.dialect import SQLITE_FUNCTIONS as DEFAULT_ALLOWED_FUNCTIONS
from memgate.manager.backend.sqlite.dialect import SQLITE_QUERY_DIALECT as SQLITE
from memgate.manager.errors import QueryRejected
from memgate.manager.query.admission import AdmittedQuery, admit_query

VIEWS = {"entity_v", "kb_chunk_v"}
# Names a hostile query reaches for; no refusal may echo them back.
FORBIDDEN_NAMES = ("entity_memory", "sqlite_master", "load_extension", "randomblob", "pragma_table_info")

MESSAGES = {
    "empty": "query refused (rule empty): it contains no SQL statement. Send one SELECT statement.",
    "characters": "query refused (rule characters): it contains a NUL character or an unpaired "
    "surrogate. Remove control characters from the query.",
    "syntax": "query refused (rule syntax): it could not be parsed as SQLite SQL. Send one SELECT "
    "(or WITH ... SELECT) statement in SQLite syntax.",
    "complexity": "query refused (rule complexity): it is nested too deeply to check. Flatten the "
    "nested expressions or subqueries.",
    "one-statement": "query refused (rule one-statement): it has a semicolon outside a string "
    "literal. Send exactly one statement, without a trailing semicolon.",
    "placeholder": "query refused (rule placeholder): it has a bind placeholder (?, :name, @name, "
    "$name or #name). Write the values into the query as literals.",
    "select-only": "query refused (rule select-only): only a SELECT statement is accepted. "
    "WITH ... SELECT and UNION, INTERSECT or EXCEPT of SELECTs are fine.",
    "nested-statement": "query refused (rule nested-statement): it contains a statement other "
    "than SELECT inside it. Only reads are accepted, also inside WITH clauses and subqueries.",
    "schema": "query refused (rule schema): it names a schema or a database link (like main.x, "
    "temp.x or x@link). Use the bare view name.",
    "table": "query refused (rule table): it reads a table or view that is not on the allowed "
    "list. Allowed views: entity_v, kb_chunk_v.",
    "function": "query refused (rule function): it calls a function that is not on the allowed "
    "list. Allowed functions: " + ", ".join(sorted(DEFAULT_ALLOWED_FUNCTIONS)) + ".",
}


def admit(sql: str, **kwargs) -> AdmittedQuery:
    return admit_query(sql, dialect=SQLITE, allowed_views=VIEWS, allowed_functions=DEFAULT_ALLOWED_FUNCTIONS, **kwargs)


def refusal(sql: str, **kwargs) -> QueryRejected:
    with pytest.raises(QueryRejected, match=r"^query refused \(rule [\w-]+\): ") as caught:
        admit(sql, **kwargs)
    return caught.value


class Authorizer:
    """What SQLite itself reads and calls while compiling a query: the oracle for admission."""

    def __init__(self):
        self.db = sqlite3.connect(":memory:")
        columns = "id, subject, content, content_json, confidence, version, doc_id, title, text"
        for table in ("entity_v", "kb_chunk_v", "entity_memory"):
            self.db.execute(f"CREATE TABLE {table} ({columns})")
        self.events: list[tuple[int, str | None, str | None, str | None]] = []
        self.db.set_authorizer(self._record)

    def _record(self, action, arg1, arg2, database, _trigger):
        self.events.append((action, arg1, arg2, database))
        return sqlite3.SQLITE_OK

    def compile(self, sql: str) -> list[tuple[int, str | None, str | None, str | None]]:
        """Every authorizer event for `sql`, compiled with EXPLAIN so nothing runs."""
        self.events = []
        try:
            self.db.execute("EXPLAIN " + sql).fetchall()
        except sqlite3.Error:
            pass  # SQLite may still refuse what admission let through; the events count
        return self.events

    def outside_allowlist(self, sql: str) -> list[tuple[int, str | None, str | None, str | None]]:
        allowed_calls = DEFAULT_ALLOWED_FUNCTIONS | {"like", "glob"}  # the LIKE/GLOB operators
        bad = []
        for action, arg1, arg2, database in self.compile(sql):
            if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE):
                continue
            # A read with no database is of a CTE (SQLite names it), not of a stored table.
            if action == sqlite3.SQLITE_READ and (database is None or arg1.lower() in VIEWS):
                continue
            if action == sqlite3.SQLITE_FUNCTION and arg2.lower() in allowed_calls:
                continue
            bad.append((action, arg1, arg2, database))
        return bad


@pytest.fixture(scope="module")
def authorizer():
    return Authorizer()


ACCEPTED = [
    # comments anywhere, even inside a two-word keyword
    ("SELECT id FROM entity_v ORDER /* newest first */ BY id", {"entity_v"}),
    ("SELECT subject, COUNT(*) FROM entity_v GROUP -- per subject\n BY subject", {"entity_v"}),
    ("SELECT id, subject FROM entity_v WHERE subject = 'Ada' ORDER BY id LIMIT 5", {"entity_v"}),
    ("select COUNT(*) from ENTITY_V", {"entity_v"}),
    ('SELECT * FROM "Entity_V"', {"entity_v"}),
    ("SELECT * FROM [entity_v] JOIN `kb_chunk_v` USING (id)", {"entity_v", "kb_chunk_v"}),
    ("SELECT 1", set()),
    ("SELECT e.subject, k.text FROM entity_v e JOIN kb_chunk_v k ON k.doc_id = e.id", {"entity_v", "kb_chunk_v"}),
    ("SELECT subject FROM entity_v UNION SELECT title FROM kb_chunk_v", {"entity_v", "kb_chunk_v"}),
    ("SELECT id FROM entity_v INTERSECT SELECT id FROM kb_chunk_v EXCEPT SELECT 1", {"entity_v", "kb_chunk_v"}),
    ("SELECT id FROM entity_v WHERE id IN (SELECT doc_id FROM kb_chunk_v)", {"entity_v", "kb_chunk_v"}),
    ("SELECT id IN kb_chunk_v FROM entity_v", {"entity_v", "kb_chunk_v"}),
    (
        "WITH recent AS (SELECT * FROM entity_v WHERE version > 1) "
        "SELECT subject, count(*) FROM recent GROUP BY subject HAVING count(*) > 1",
        {"entity_v"},
    ),
    ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT i FROM n", set()),
    ("WITH a AS (SELECT * FROM b), b AS (SELECT 1 AS x) SELECT * FROM a", set()),
    ("WITH entity_memory AS (SELECT id FROM entity_v) SELECT * FROM entity_memory", {"entity_v"}),
    ("SELECT * FROM (SELECT subject FROM entity_v) AS s", {"entity_v"}),
    (
        "SELECT row_number() OVER (PARTITION BY subject ORDER BY version DESC) AS rn, "
        "lag(version) OVER w FROM entity_v WINDOW w AS (ORDER BY id)",
        {"entity_v"},
    ),
    ("SELECT count(*) FILTER (WHERE confidence > 0.5), group_concat(DISTINCT subject) FROM entity_v", {"entity_v"}),
    (
        "SELECT content_json ->> '$.when', content_json -> '$.who', json_extract(content_json, '$.x') FROM entity_v",
        {"entity_v"},
    ),
    (
        "SELECT CAST(confidence AS TEXT), CASE WHEN confidence > 0.5 THEN 'high' ELSE 'low' END, "
        "EXISTS (SELECT 1 FROM kb_chunk_v) FROM entity_v",
        {"entity_v", "kb_chunk_v"},
    ),
    (
        "SELECT ifnull(subject, ''), iif(version > 1, 'new', 'old'), substr(subject, 1, 3), "
        "printf('%d', id), current_timestamp, round(abs(confidence), 2) FROM entity_v",
        {"entity_v"},
    ),
    (
        "SELECT * FROM entity_v WHERE subject LIKE 'a%' OR subject NOT GLOB 'b*' OR subject COLLATE NOCASE = 'x'",
        {"entity_v"},
    ),
    ("SELECT ';', 'it''s', ''';DELETE FROM entity_memory', '/*', '--' FROM entity_v", {"entity_v"}),
    ("SELECT '?', ':name', '@x', '$y', '#z', x'00ff' FROM entity_v", {"entity_v"}),
    ('SELECT "lower"(subject) FROM entity_v -- the subject, lower-cased', {"entity_v"}),
    ('SELECT 1 AS "；DELETE"', set()),
]


@pytest.mark.parametrize(("sql", "tables"), ACCEPTED)
def test_admit_query_accepts_reads_of_allowed_views(sql, tables, authorizer):
    assert admit(sql) == AdmittedQuery(sql=sql, tables=frozenset(tables))
    assert authorizer.outside_allowlist(sql) == []


def test_admit_query_returns_the_text_stripped():
    assert admit("\n  SELECT id FROM entity_v\n\t") == AdmittedQuery("SELECT id FROM entity_v", frozenset({"entity_v"}))


REJECTED = [
    # one statement only: a semicolon anywhere outside a string literal
    ("SELECT 1; DELETE FROM entity_memory", "one-statement"),
    ("SELECT 1;", "one-statement"),
    ("SELECT 1 /*;*/", "one-statement"),
    ("SELECT 1 -- ;", "one-statement"),
    ("SELECT id /* ; DELETE FROM entity_memory */ FROM entity_v", "one-statement"),
    ('SELECT 1 AS "a;b"', "one-statement"),
    ("SELECT 'a\\'; DELETE FROM entity_memory; --'", "one-statement"),  # backslash is no escape
    # SELECT only, and nothing else inside it
    ("DELETE FROM entity_v", "select-only"),
    ("PRAGMA table_info(entity_memory)", "select-only"),
    ("ATTACH DATABASE 'other.db' AS other", "select-only"),
    ("VACUUM", "select-only"),
    ("EXPLAIN SELECT 1", "select-only"),
    ("VALUES (1)", "select-only"),
    ("WITH x AS (SELECT 1) INSERT INTO entity_memory SELECT * FROM x", "select-only"),
    ("WITH x AS (DELETE FROM entity_memory RETURNING *) SELECT * FROM x", "nested-statement"),
    ("SELECT * INTO copy FROM entity_v", "nested-statement"),
    # tables: only the allowed views, and CTEs in scope
    ("SELECT * FROM entity_memory", "table"),
    ("SELECT name FROM sqlite_master", "table"),
    ("SELECT id FROM entity_v WHERE id IN entity_memory", "table"),
    ("SELECT id FROM entity_v WHERE id IN 'entity_memory'", "table"),  # a string read as a table name
    ("SELECT * FROM (WITH entity_memory AS (SELECT 1) SELECT * FROM entity_memory), entity_memory", "table"),
    ("SELECT 1 ；DELETE FROM entity_memory", "table"),  # fullwidth semicolon is an identifier character
    ("SELECT * FROM \u212ab_chunk_v", "table"),  # Kelvin sign: str.lower() would make it "kb_chunk_v"
    ("SELECT * FROM main.entity_v", "schema"),
    ("SELECT * FROM temp.entity_v", "schema"),
    ('SELECT * FROM "main"."entity_v"', "schema"),
    ("SELECT * FROM entity_v@remote", "schema"),
    ("SELECT 1 IN main.entity_v", "schema"),
    # functions: only the allowed ones
    ("SELECT load_extension('/tmp/evil.so')", "function"),
    ("SELECT hex(randomblob(1000000))", "function"),
    ("SELECT * FROM pragma_table_info('entity_memory')", "function"),
    ("SELECT sqlite_version()", "function"),
    ("SELECT readfile('/etc/passwd')", "function"),
    ("SELECT subject FROM entity_v WHERE subject REGEXP 'a'", "function"),
    ("SELECT count(*) OVER (), zeroblob(10) FROM entity_v", "function"),
    # placeholders: the caller writes literals
    ("SELECT * FROM entity_v WHERE id = ?", "placeholder"),
    ("SELECT * FROM entity_v WHERE id = ?1", "placeholder"),
    ("SELECT * FROM entity_v WHERE id = :id", "placeholder"),
    ("SELECT @id", "placeholder"),
    ("SELECT $id", "placeholder"),
    ("SELECT #id", "placeholder"),
    # text that is not one SQLite SELECT
    ("", "empty"),
    ("   \n\t", "empty"),
    ("-- only a comment", "empty"),
    ("SELECT 'nul\x00'", "characters"),
    ("SELECT '\ud800'", "characters"),
    ("S\u0415LECT * FROM entity_v", "syntax"),  # Cyrillic Е
    ("SELECT * FROM entity_v UN\u0406ON SELECT * FROM entity_memory", "syntax"),  # Cyrillic І
    ("SELECT id::text FROM entity_v", "syntax"),
    ("SELECT 1 /* never closed", "syntax"),
    ("SELECT", "syntax"),
    ("SELECT FROM entity_v", "syntax"),
    ("SELECT 1 2", "syntax"),
    ("SELECT " + "(" * 5000 + "1" + ")" * 5000, "complexity"),
]


@pytest.mark.parametrize(("sql", "rule"), REJECTED)
def test_admit_query_refuses_with_the_rule_and_its_message(sql, rule):
    refused = refusal(sql)
    assert (refused.rule, refused.field, refused.with_hint()) == (rule, "query", MESSAGES[rule])


@pytest.mark.parametrize(("sql", "rule"), REJECTED)
def test_refusals_never_echo_names_from_the_query(sql, rule):
    text = refusal(sql).with_hint()
    assert [name for name in FORBIDDEN_NAMES if name in text] == []


def test_admit_query_refuses_text_over_the_length_cap():
    refused = refusal("SELECT 1", max_chars=5)
    assert (refused.rule, refused.with_hint()) == (
        "length",
        "query refused (rule length): it is 8 characters long and the limit is 5. "
        "Ask for fewer columns or split the question into smaller queries.",
    )


def test_admit_query_compares_names_case_insensitively_on_both_sides():
    admitted = admit_query(
        "SELECT LOWER(Subject) FROM Entity_V", dialect=SQLITE, allowed_views={"ENTITY_V"}, allowed_functions={"Lower"}
    )
    assert admitted.tables == frozenset({"entity_v"})


def test_admit_query_with_no_allowed_views_says_so():
    with pytest.raises(QueryRejected, match=r"^query refused \(rule table\): ") as caught:
        admit_query("SELECT * FROM entity_v", dialect=SQLITE, allowed_views=set(), allowed_functions=set())
    assert caught.value.with_hint() == (
        "query refused (rule table): it reads a table or view that is not on the allowed list. "
        "No views are allowed here."
    )


def test_default_functions_leave_out_the_dangerous_ones():
    dangerous = {
        "load_extension",
        "readfile",
        "writefile",
        "randomblob",
        "zeroblob",
        "hex",
        "sqlite_version",
        "random",
        "regexp",
    }
    assert DEFAULT_ALLOWED_FUNCTIONS & dangerous == set()


FRAGMENTS = [
    "SELECT",
    "SELECT",
    "SELECT",
    "*",
    "id",
    "subject",
    "count(*)",
    "lower(",
    "upper(subject)",
    "load_extension(",
    "hex(",
    "zeroblob(",
    "sqlite_version()",
    "pragma_table_info(",
    "json_each(",
    "FROM",
    "FROM",
    "entity_v",
    "kb_chunk_v",
    "entity_memory",
    "sqlite_master",
    "main.",
    "temp.",
    "main.entity_v",
    "entity_v@link",
    "WHERE",
    "=",
    "<",
    "1",
    "0.5",
    "'x'",
    "';'",
    "'it''s'",
    "'",
    '"',
    "[",
    "]",
    "`",
    "(",
    ")",
    "(",
    ")",
    ",",
    ",",
    ";",
    "；",
    "--",
    "/*",
    "*/",
    "\n",
    "WITH",
    "RECURSIVE",
    "c",
    "AS",
    "AS",
    "(SELECT 1)",
    "UNION",
    "ALL",
    "INTERSECT",
    "EXCEPT",
    "JOIN",
    "ON",
    "USING",
    "IN",
    "NOT",
    "AND",
    "OR",
    "LIKE",
    "GLOB",
    "REGEXP",
    "IS",
    "NULL",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "CAST(",
    "AS TEXT",
    "->",
    "->>",
    "||",
    "x'00'",
    "ORDER BY",
    "GROUP BY",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "OVER",
    "(PARTITION BY id)",
    "FILTER",
    "DELETE",
    "INSERT",
    "INTO",
    "UPDATE",
    "SET",
    "DROP",
    "TABLE",
    "PRAGMA",
    "ATTACH",
    "VACUUM",
    "EXPLAIN",
    "RETURNING",
    "VALUES",
    "?",
    ":p",
    "@p",
    "$p",
    "#p",
    "?1",
    "::",
    "\x00",
    "\\",
    "S\u0415LECT",
    "\u212a",
    "INDEXED BY",
    "DISTINCT",
    "EXISTS",
    "COLLATE NOCASE",
    "current_time",
]


GOOD_TABLES = ["entity_v", "kb_chunk_v", "Entity_V", '"kb_chunk_v"', "c"]
BAD_TABLES = ["entity_memory", "sqlite_master", "main.entity_v", "json_each('[1]')", "pragma_table_info('entity_v')"]
GOOD_CALLS = ["count", "lower", "upper", "length", "abs", "coalesce", "typeof", "json_extract", "max"]
BAD_CALLS = ["load_extension", "hex", "randomblob", "sqlite_version", "readfile"]


def pick(rng: random.Random, good: list[str], bad: list[str]) -> str:
    return rng.choice(good) if rng.random() < 0.85 else rng.choice(bad)


def random_expression(rng: random.Random, depth: int = 0) -> str:
    choice = rng.randrange(9 if depth < 2 else 5)
    if choice == 0:
        return rng.choice(["id", "subject", "*", "version", "c.id"])
    if choice == 1:
        return pick(rng, ["1", "0.5", "'x'", "';'", "NULL", "x'00'", "'$.a'"], ["?", ":p", "$p", "@p"])
    if choice == 2:
        return f"{pick(rng, GOOD_CALLS, BAD_CALLS)}({random_expression(rng, depth + 1)})"
    if choice == 3:
        operator = rng.choice(["=", "<", "LIKE", "GLOB", "||", "->>", "AND", "OR"])
        return f"{random_expression(rng, depth + 1)} {operator} {random_expression(rng, depth + 1)}"
    if choice == 4:
        return f"id IN {pick(rng, GOOD_TABLES, BAD_TABLES)}"
    if choice == 5:
        return f"(SELECT {random_expression(rng, depth + 1)} FROM {pick(rng, GOOD_TABLES, BAD_TABLES)})"
    if choice == 6:
        return f"CASE WHEN {random_expression(rng, depth + 1)} THEN 1 ELSE 0 END"
    if choice == 7:
        return f"CAST({random_expression(rng, depth + 1)} AS TEXT)"
    return f"EXISTS (SELECT 1 FROM {pick(rng, GOOD_TABLES, BAD_TABLES)})"


def random_select(rng: random.Random) -> str:
    sql = f"SELECT {', '.join(random_expression(rng) for _ in range(rng.randint(1, 3)))}"
    if rng.random() < 0.8:
        sql += f" FROM {pick(rng, GOOD_TABLES, BAD_TABLES)}"
    if rng.random() < 0.4:
        sql += f" WHERE {random_expression(rng)}"
    if rng.random() < 0.2:
        sql += f" UNION SELECT id FROM {pick(rng, GOOD_TABLES, BAD_TABLES)}"
    if rng.random() < 0.3:
        cte = pick(rng, ["c"], ["entity_memory", "sqlite_master"])
        sql = f"WITH {cte} AS (SELECT id FROM {pick(rng, GOOD_TABLES, BAD_TABLES)}) {sql}"
    return sql


def random_query(rng: random.Random) -> str:
    """Mostly well-formed SELECTs over good and bad names, some mangled, some pure soup."""
    roll = rng.random()
    if roll < 0.2:
        return " ".join(["SELECT"] + rng.choices(FRAGMENTS, k=rng.randint(1, 12)))
    words = random_select(rng).split(" ")
    if roll < 0.5:
        for _ in range(rng.randint(1, 2)):
            words.insert(rng.randrange(len(words) + 1), rng.choice(FRAGMENTS))
    return " ".join(words)


def test_token_soup_is_admitted_only_when_sqlite_reads_just_allowed_names(authorizer):
    rng = random.Random(20261202)
    admitted = []
    for _ in range(3000):
        sql = random_query(rng)
        try:
            result = admit(sql)
        except QueryRejected:
            continue
        assert result.tables <= VIEWS, sql
        assert authorizer.outside_allowlist(sql) == [], sql
        admitted.append(sql)
    assert len(admitted) > 300  # the soup must get past the first rules to prove anything


@pytest.mark.parametrize(
    "sql, binds",
    [
        ("SELECT * FROM entity_v WHERE id = :id", {"id"}),
        ("SELECT * FROM entity_v WHERE a >= :since OR b >= :since", {"since"}),
        ("SELECT :date, :limit_2 FROM entity_v LIMIT :n", {"date", "limit_2", "n"}),  # keywords make names too
        ("SELECT ':not_a_bind', \":nor_this\" FROM entity_v", set()),
    ],
)
def test_a_reviewed_statement_may_bind_named_values_and_admission_names_them(sql, binds):
    assert admit(sql, binds=True).binds == binds


@pytest.mark.parametrize(
    "sql, rule",
    [
        ("SELECT * FROM entity_v WHERE id = ?", "named-binds"),
        ("SELECT * FROM entity_v WHERE id = ?1", "named-binds"),
        ("SELECT @id FROM entity_v", "named-binds"),
        ("SELECT $id FROM entity_v", "named-binds"),
        ("SELECT : id FROM entity_v", "named-binds"),
        ("SELECT :1 FROM entity_v", "named-binds"),
        ("SELECT * FROM :view", "table"),
        ("DELETE FROM entity_v WHERE id = :id", "select-only"),
    ],
)
def test_a_reviewed_statement_binds_only_as_colon_name_and_keeps_every_other_rule(sql, rule):
    assert refusal(sql, binds=True).rule == rule
