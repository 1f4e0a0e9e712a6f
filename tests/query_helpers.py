"""The hostile query corpus for execute_query tests, and the checks every outcome must pass.

Seeded random (no hypothesis), so a failing query reproduces. Globex's rows carry MARKER;
no generated query contains it, so it may never appear in any output.
"""

from __future__ import annotations

import hashlib
import random
import re

from backend_helpers import with_call_log

from memgate.manager.backend.sqlite import schema as sqlite_schema

MARKER = "zq" + "xglobexmarker91"  # split, so this file's text never holds the marker whole
REVIEWED = [
    "conversation_memory",
    "entity_memory",
    "entity_memory_history",
    "guideline_memory",
    "guideline_memory_history",
    "knowledge_base_chunk",
    "knowledge_base_document",
    "memory_candidate",
    "persona_memory",
    "persona_memory_history",
    "summarization_memory",
    "workflow_memory",
    "workflow_memory_history",
]
UNREVIEWED = ["mcp_call_log", "toolbox_memory", "memory_file", "memory_store", "memory_assessment"]
#: driver text, internals and names off the list; "SQLite" alone is the documented dialect, not a leak
LEAK_WORDS = [
    "sqlite_",
    "sqlite3",
    "pysqlite",
    "error:",
    "traceback",
    'near "',
    "syntax error",
    "no such",
    "operationalerror",
    "databaseerror",
    "prohibited",
    "not authorized",
    *UNREVIEWED,
]
#: a base table's name (knowledge_base_chunk is not one: its "base_" follows a letter)
BASE_NAME = re.compile(r"(?<![a-z0-9_])base_")


def base_checksum(backend, skip: tuple[str, ...] = ()) -> str:
    """A digest of every base table's rows (but `skip`; the call log's skips its cited ids too) and of the
    schema, read on a trusted connection."""
    digest = hashlib.sha256()
    skip = tuple(with_call_log(skip))
    with backend.unwalled_connection() as conn:
        for row in conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name"):
            digest.update(repr(tuple(row)).encode())
        for table in sqlite_schema.base_tables(conn):
            if table in skip:
                continue
            for row in conn.execute(f"SELECT * FROM {table} ORDER BY rowid"):
                digest.update(repr(tuple(row)).encode())
    return digest.hexdigest()


# -- the corpus ---------------------------------------------------------------------------

BASES = [f"base_{v}" for v in REVIEWED + UNREVIEWED if not v.endswith("_history")]
FORBIDDEN_SOURCES = (
    BASES
    + UNREVIEWED
    + [
        "sqlite_master",
        "sqlite_schema",
        "sqlite_temp_master",
        "temp.sqlite_master",
        "main.base_entity_memory",
        "main.entity_memory",
        "pragma_table_info('base_entity_memory')",
        "dbstat",
        "sqlite_stmt",
        "json_each('[1]')",
        "json_tree('{}')",
        "pragma_database_list",
        "memgate_schema",
    ]
)
QUOTES = ["{}", '"{}"', "[{}]", "`{}`", "'{}'"]
BAD_FUNCTIONS = [
    "load_extension('x')",
    "readfile('/etc/passwd')",
    "sqlite_version()",
    "randomblob(9999999)",
    "zeroblob(99999999)",
    "hex(content)",
    "app_tenant()",
    "app_user()",
    "char(65)",
    "quote(id)",
    "unicode('a')",
    "sqlite_compileoption_get(0)",
    "likelihood(1, 0.5)",
    "soundex('a')",
    "changes()",
    "last_insert_rowid()",
    "total_changes()",
    "random()",
    "sqlite_source_id()",
    "fts3_tokenizer('simple')",
    "json(content)",
    "json_group_array(id)",
    "format('%s', id)",
]
WRITES = [
    "INSERT INTO {v} (id, subject, predicate, content) VALUES ('x', 's', 'p', 'c')",
    "UPDATE {v} SET content = 'pwned'",
    "DELETE FROM {v}",
    "REPLACE INTO {v} (id) VALUES ('x')",
    "DROP VIEW {v}",
    "DROP TABLE {v}",
    "ALTER TABLE {v} RENAME TO x",
    "CREATE TABLE x (a)",
    "CREATE TEMP VIEW x AS SELECT * FROM {v}",
    "CREATE TRIGGER t AFTER INSERT ON {v} BEGIN SELECT 1; END",
    "PRAGMA query_only = 0",
    "PRAGMA writable_schema = 1",
    "ATTACH DATABASE ':memory:' AS o",
    "ATTACH 'file:/tmp/x.db' AS o",
    "DETACH o",
    "VACUUM",
    "VACUUM INTO '/tmp/leak.db'",
    "BEGIN",
    "COMMIT",
    "SAVEPOINT s",
    "REINDEX",
    "ANALYZE",
    "INSERT INTO {v} SELECT * FROM {v}",
    "WITH x AS (SELECT 1) DELETE FROM {v}",
    "SELECT 1 INTO x",
    "UPDATE {v} SET tenant_id = 'acme'",
]
OTHER_TENANT = [
    "tenant_id = 'globex'",
    "tenant_id <> 'acme'",
    "tenant_id != 'acme' OR 1 = 1",
    "1 = 1 OR tenant_id = 'globex'",
    "tenant_id IN ('globex', 'acme')",
    "tenant_id IS NOT NULL",
    "tenant_id LIKE 'glob%'",
    "lower(tenant_id) = 'globex'",
    "id LIKE '%glob%'",
    "content LIKE '%zqx%'",
    "subject GLOB '*zq*'",
    "NOT (tenant_id = 'acme')",
    "tenant_id > ''",
]
COLUMNS = [
    "*",
    "id",
    "content",
    "tenant_id",
    "count(*)",
    "id, content",
    "tenant_id, count(*)",
    "max(id)",
    "group_concat(content, '|')",
    "typeof(content)",
    "upper(content)",
    "substr(content, 1, 20)",
]
UNICODE = [
    "\uff33\uff25\uff2c\uff25\uff23\uff34 * FROM entity_memory",  # fullwidth SELECT
    "SELECT * FROM b\u0430se_entity_memory",  # Cyrillic a
    "SELECT * FROM base\u200b_entity_memory",
    "SELECT * FROM \u202ebase_entity_memory",
    "SELECT * FROM entity_memory\u037e DELETE FROM entity_memory",  # Greek question mark
    "SELECT * FROM entity_memory\uff1b DELETE FROM entity_memory",  # fullwidth semicolon
    "SELECT * FROM \u212aNOWLEDGE_base_chunk",  # Kelvin sign
    "SELECT * FROM entity_memory WHERE id = 'x\u0000' OR 1=1",
    "SELECT '\ud800'",
    'SELECT * FROM "entity_memory\u0000"',
    "SELECT * FROM ent\u00adity_memory",
    "SELECT \u2028* FROM base_entity_memory",
    "SELECT * FROM BASE_ENTITY_MEMORY",
    "SELECT * FROM Base_Entity_Memory",
    "SELECT * FROM e\u0301ntity_memory",
]
RECURSIVE = [
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
    "WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r WHERE length(s) < 70000) "
    "SELECT length(s) FROM r",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 50) SELECT count(*) FROM r",
    "WITH RECURSIVE r(n, c) AS (SELECT 1, '' UNION ALL SELECT n + 1, c || content FROM r, entity_memory "
    "WHERE n < 4) SELECT count(*) FROM r",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 30) "
    "SELECT n, (SELECT count(*) FROM entity_memory) FROM r",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) "
    "SELECT * FROM r JOIN base_entity_memory",
    "WITH RECURSIVE entity_memory(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM entity_memory WHERE n < 5) "
    "SELECT * FROM entity_memory",
    "SELECT length(replace(printf('%.*c', 90000, 'x'), 'x', 'xxxxxxxx'))",
]
COMMENT_TRICKS = [
    "SELECT/**/*/**/FROM/**/base_entity_memory",
    "SELECT * FROM entity_memory -- ;DROP VIEW x",
    "SELECT * FROM entity_memory /* ; DELETE FROM entity_memory */",
    "SELECT * FROM entity_memory;--",
    "SELECT * FROM entity_memory; -- trailing",
    "SEL/**/ECT * FROM entity_memory",
    "/*! DELETE FROM entity_memory */ SELECT 1",
    "SELECT * FROM entity_memory WHERE 1 = 1 --\n; DELETE FROM entity_memory",
    "SELECT * FROM entity_memory /* unterminated",
    "SELECT 1 /*/ ; DELETE FROM entity_memory /*/",
    "SELECT ';' ; DELETE FROM entity_memory",
    'SELECT * FROM "a;b"',
    "#\nSELECT 1",
    "SELECT * FROM entity_memory WHERE id = ?",
    "SELECT * FROM entity_memory WHERE id = :id",
    "SELECT * FROM entity_memory WHERE id = @id",
    "SELECT * FROM entity_memory WHERE id = $id",
    "SELECT * FROM entity_memory@dblink",
    "SELECT 1::text",
    "EXPLAIN SELECT * FROM entity_memory",
    "EXPLAIN QUERY PLAN SELECT * FROM base_entity_memory",
    "VALUES (1)",
    "",
]


def _case(rng: random.Random, text: str) -> str:
    return "".join(c.upper() if rng.random() < 0.3 else c for c in text)


def _space(rng: random.Random, text: str) -> str:
    fill = ["  ", "\n", "\t", " /* c */ ", " -- c\n"]
    return " ".join(part + (rng.choice(fill) if rng.random() < 0.1 else "") for part in text.split(" "))


def hostile_queries(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        kind = rng.randrange(12)
        view = rng.choice(REVIEWED)
        cols = rng.choice(COLUMNS)
        if kind == 0:
            q = rng.choice(WRITES).format(v=rng.choice(REVIEWED + BASES + UNREVIEWED))
        elif kind == 1:
            glue = rng.choice([";", "; ", ";\n", " ; "])
            q = f"SELECT {cols} FROM {view}{glue}" + rng.choice(WRITES).format(v=rng.choice(REVIEWED + BASES))
        elif kind == 2:
            src = rng.choice(FORBIDDEN_SOURCES)
            name = rng.choice(QUOTES).format(src) if "(" not in src and "." not in src else src
            q = rng.choice(
                [
                    f"SELECT {cols} FROM {name}",
                    f"SELECT * FROM {view} JOIN {name} USING (id)",
                    f"SELECT * FROM {view} WHERE id IN (SELECT id FROM {name})",
                    f"WITH x AS (SELECT * FROM {name}) SELECT * FROM x",
                    f"WITH {view} AS (SELECT * FROM {name}) SELECT * FROM {view}",
                    f"SELECT (SELECT count(*) FROM {name}) FROM {view}",
                    f"SELECT * FROM {view} UNION ALL SELECT * FROM {name}",
                    f"SELECT 1 FROM {view} WHERE id IN {name}",
                    f"SELECT * FROM {view} WHERE EXISTS (SELECT 1 FROM {name})",
                ]
            )
        elif kind == 3:
            q = f"SELECT {cols} FROM {view} WHERE {rng.choice(OTHER_TENANT)}"
        elif kind == 4:
            q = f"SELECT {rng.choice(BAD_FUNCTIONS)} FROM {view}"
        elif kind == 5:
            q = rng.choice(UNICODE)
        elif kind == 6:
            q = rng.choice(RECURSIVE)
        elif kind == 7:
            q = rng.choice(COMMENT_TRICKS)
        elif kind == 8:
            other = rng.choice(REVIEWED)
            q = (
                f"SELECT a.{rng.choice(['id', 'content', 'tenant_id'])} FROM {view} a LEFT JOIN {other} b "
                f"ON a.tenant_id = b.tenant_id WHERE b.{rng.choice(OTHER_TENANT)} LIMIT {rng.randrange(1, 40)}"
            )
        elif kind == 9:
            q = f"SELECT {cols} FROM {view} GROUP BY tenant_id HAVING count(*) >= 0 ORDER BY 1"
        elif kind == 10:
            q = f"SELECT {cols} FROM {view} WHERE content LIKE '%{rng.choice(['a', 'e', 'x', 'zq', '%'])}%'"
        else:
            q = (
                f"SELECT id, row_number() OVER (ORDER BY id) AS n FROM {view} "
                f"WHERE {rng.choice(['1', 'id IS NOT NULL', rng.choice(OTHER_TENANT)])}"
            )
        q = _space(rng, _case(rng, q)) if rng.random() < 0.5 else q
        assert MARKER not in q
        out.append(q)
    return out


CORPUS = hostile_queries(seed=20261202, n=3000)


def assert_no_leak(query: str, text: str, *, error: bool) -> None:
    assert MARKER not in text, query
    if "glob" not in query.lower():
        assert "globex" not in text.lower(), query
    if error:
        lowered = text.lower()
        assert not [w for w in LEAK_WORDS if w in lowered] and not BASE_NAME.search(lowered), (query, text)
