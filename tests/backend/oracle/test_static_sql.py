"""Every Oracle statement is checked without a database, in CI.

- every unit of sql/oracle/install/, every named statement in sql/oracle/ and every inline
  statement of the Oracle backend (manager/backend/oracle/statements.py) parses with
  sqlglot's Oracle dialect, or is PL/SQL whose blocks balance and that names only packages
  the docs list; a statement kind sqlglot does not model is reported as a skip with its
  reason (sql_checks.UNMODELLED), never passed silently;
- no other SQL text hides in the Oracle backend's modules;
- the binds of each named statement are exactly the parameters every call site passes,
  for each dialect the call site can reach, and inline statements bind what they declare;
- SQLite and Oracle have the same named statements, but for the dialect-internal ones listed
  here with the reason; the failure lists every missing twin;
- no manager, toolbox or server code outside manager/backend/ names a dialect.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import sql_checks
from doc_helpers import doc_text

from memgate.manager.backend.oracle import install, statements
from memgate.manager.backend.oracle.install import script_units

ROOT = Path(__file__).resolve().parents[3]
SQL = ROOT / "sql"
MANAGER = ROOT / "manager"

#: named statements only one dialect has, and why (everything else needs a twin)
DIALECT_INTERNAL = {
    "sqlite": {
        "catalog_known_names": "the names a query could read, for SQLite's query authorizer",
        "catalog_schema_objects": "the views and triggers SQLite's walled authorizer trusts",
        "query_view_current": "template of a reviewed TEMP view; Oracle's are install/050_query_views.sql",
        "query_view_versioned": "template of a versioned reviewed TEMP view; Oracle's are install/050",
        "query_views": "the list query_views.py builds TEMP views from; Oracle's views are install/050",
        "kb_lexical_index": "template of a tenant's FTS5 index, triggers and view; Oracle's lexical index is "
        "the Oracle Text CONTEXT index (023)",
        "kb_generation": "the tenant's chunk change counter the SQLite vector cache checks; Oracle ranks "
        "vectors in the database (kb_vector_candidates) and caches nothing",
        "kb_vector_rows": "the rows the SQLite vector cache is built from",
        "kb_vector_exact": "float32 embeddings of the SQLite vector cache's candidates, for exact re-scoring",
        "kb_query_words_clear": "empties the connection's TEMP FTS5 tokenizer of query words; Oracle counts "
        "each word with kb_term_chunks (CONTAINS) and needs no tokenizer",
        "kb_query_words_fill": "puts a query's words in the connection's TEMP FTS5 tokenizer (see above)",
        "kb_term_vocab": "reads the tenant FTS5 index's vocabulary (fts5vocab) for the tokenized words; Oracle "
        "counts each word with kb_term_chunks",
        "kb_index_chunks": "the rows of the tenant's FTS5 index (its docsize table); Oracle counts the caller's "
        "chunks with kb_chunk_count",
        "tenant_guard": "template of the generated tenant views and triggers; Oracle's wall is VPD (040) "
        "and the guards (022)",
        "recall_lexical_index": "template of a tenant's FTS5 recall index, triggers and view; Oracle's is the "
        "Oracle Text CONTEXT index on conversation_recall.content (026)",
        "recall_generation": "the tenant's recall change counter the SQLite vector cache checks; Oracle ranks "
        "vectors in the database (recall_vector_candidates) and caches nothing",
        "recall_vector_rows": "the rows the SQLite vector cache's recall matrices are built from",
        "recall_vector_exact": "float32 embeddings of the SQLite vector cache's recall candidates, for exact re-scoring",
    },
    "oracle": {
        "kb_hybrid": "both retrieval legs and their weighted fusion in one statement (Oracle Text SCORE and "
        "VECTOR_DISTANCE); SQLite's legs are two engines (FTS5, the in-process vector cache), fused in Python",
    },
}


def _names(dialect: str) -> set[str]:
    return {p.stem for p in (SQL / dialect).glob("*.sql")}


def _install_units() -> list[tuple[str, str]]:
    return [
        (f"{path.stem}#{n}", unit)
        for path in sorted((SQL / "oracle" / "install").glob("*.sql"))
        for n, unit in enumerate(script_units(path.read_text(encoding="utf-8")), 1)
    ]


def _named() -> list[tuple[str, str]]:
    return [(p.stem, p.read_text(encoding="utf-8")) for p in sorted((SQL / "oracle").glob("*.sql"))]


def _check_unit(text: str) -> None:
    if sql_checks.is_plsql(text):
        sql_checks.check_plsql(text)
    else:
        kind = sql_checks.parse_sql(text)
        if kind is not None:
            pytest.skip(f"unchecked by sqlglot: {sql_checks.UNMODELLED[kind]}")
    assert sql_checks.unknown_qualifiers(text) == [], "names a package the docs list does not (sql_checks.py)"


@pytest.mark.parametrize("unit", [u for _, u in _install_units()], ids=[i for i, _ in _install_units()])
def test_each_install_statement_parses_or_balances(unit):
    _check_unit(unit)


@pytest.mark.parametrize("name,text", _named(), ids=[n for n, _ in _named()])
def test_each_named_statement_parses_or_balances_and_binds_no_reserved_word(name, text):
    assert sql_checks.reserved_binds(text) == []
    if not sql_checks.is_plsql(text):
        assert sql_checks.parse_sql(text) is None, "a named statement must be a statement sqlglot models"
    else:
        sql_checks.check_plsql(text)
    assert sql_checks.unknown_qualifiers(text) == []


_INLINE_SAMPLES = sql_checks.INLINE_SAMPLES


@pytest.mark.parametrize("name", sorted(statements.ALL))
def test_each_inline_statement_parses_or_balances_and_declares_its_binds(name):
    inline = statements.ALL[name]
    text = inline.text.format(**_INLINE_SAMPLES) if "{" in inline.text else inline.text
    assert sql_checks.binds(text) - {"c0", "c1"} == set(inline.binds)
    if inline.kind == "plsql":
        assert sql_checks.is_plsql(text)
        sql_checks.check_plsql(text)
    elif inline.kind == "sql" and inline.unparsed:
        assert sql_checks.unknown_qualifiers(text) == []
        pytest.skip(f"unchecked by sqlglot: {inline.unparsed}")
    elif inline.kind == "sql":
        assert sql_checks.parse_sql(text) is None
    else:
        pytest.skip("unchecked by sqlglot: ALTER SESSION is not modelled (a constant session setting)")
    assert sql_checks.unknown_qualifiers(text) == []


def test_the_unmodelled_list_has_no_kind_the_scripts_do_not_use():
    used = {
        sql_checks.statement_kind(sql_checks.strip_code(u).strip())
        for _, u in _install_units()
        if not sql_checks.is_plsql(u)
    }
    assert set(sql_checks.UNMODELLED) <= used


def test_the_checks_catch_broken_text():
    with pytest.raises(ValueError, match="unclosed"):
        sql_checks.check_plsql("BEGIN IF x THEN NULL; END IF;")
    with pytest.raises(ValueError, match="unterminated"):
        sql_checks.check_plsql("BEGIN x := 'open; END;")
    with pytest.raises(ValueError, match="not listed as unmodelled"):
        sql_checks.parse_sql("CREATE DATABASE LINK lnk CONNECT TO a IDENTIFIED BY b USING 'x'")
    with pytest.raises(ValueError, match="trailing"):
        sql_checks.parse_sql("SELECT 1 FROM dual;")
    assert sql_checks.unknown_qualifiers("BEGIN DBMS_JOB.SUBMIT(j, 'x'); END;") == ["DBMS_JOB"]
    assert sql_checks.reserved_binds("SELECT 1 FROM dual WHERE :user = 'x'") == ["user"]


def test_the_recorded_schema_version_is_the_backends():
    text = (SQL / "oracle" / "install" / "090_schema_version.sql").read_text(encoding="utf-8")
    assert re.findall(r"SELECT (\d+) FROM dual WHERE NOT EXISTS .* version = (\d+)", text) == [
        (str(install.SCHEMA_VERSION), str(install.SCHEMA_VERSION))
    ]


# -- no SQL text outside statements.py ------------------------------------------------------------

_SQL_START = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|MERGE|BEGIN|DECLARE|ALTER|CREATE|DROP|GRANT|WITH)\b")


def test_the_oracle_backend_keeps_its_sql_in_statements_py():
    found = []
    for path in sorted((MANAGER / "backend" / "oracle").glob("*.py")):
        if path.name == "statements.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL_START.match(node.value):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []


# -- binds against call sites ---------------------------------------------------------------------

_METHODS = {"fetch_all", "fetch_one", "fetch_page", "execute"}
_STATEMENT_NAME = re.compile(r"[a-z][a-z0-9_]*")


def _dialects_of(path: Path) -> tuple[str, ...]:
    parts = path.relative_to(MANAGER).parts
    if parts[:2] == ("backend", "sqlite"):
        return ("sqlite",)
    if parts[:2] == ("backend", "oracle"):
        return ("oracle",)
    return ("sqlite", "oracle")


def _dict_keys(node: ast.AST) -> set[str] | None:
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.keys):
        return {k.value for k in node.keys}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        return {k.arg for k in node.keywords if k.arg}
    return None


_BASE = ast.parse((MANAGER / "backend" / "base.py").read_text(encoding="utf-8"))


def _spread_keys(value: ast.AST, scope: ast.AST, module: ast.Module) -> set[str]:
    """The keys a `**value` spread passes: a dict bound in the same function, or a helper returning one."""
    if isinstance(value, ast.Name):
        for node in ast.walk(scope):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == value.id for t in targets):
                    if (keys := _dict_keys(node.value)) is not None:
                        return keys
    if isinstance(value, ast.Call):
        called = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", None)
        # a helper of the call site's module, or of the backends' shared types (ChunkFilters.binds)
        for node in [*ast.walk(module), *ast.walk(_BASE)]:
            if isinstance(node, ast.FunctionDef) and node.name == called:
                for ret in ast.walk(node):
                    if (
                        isinstance(ret, ast.Return)
                        and ret.value is not None
                        and (keys := _dict_keys(ret.value)) is not None
                    ):
                        return keys
    raise AssertionError(f"cannot tell which parameters `**{ast.unparse(value)}` passes: bind a dict literal")


def _call_sites() -> list[tuple[str, str, tuple[str, ...], set[str]]]:
    """(where, statement, dialects, parameters) of every named-statement call in manager/."""
    sites = []
    for path in sorted(MANAGER.rglob("*.py")):
        module = ast.parse(path.read_text(encoding="utf-8"))
        functions = [f for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for fn in functions:
            for node in ast.walk(fn):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _METHODS
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    and _STATEMENT_NAME.fullmatch(node.args[0].value)
                ):
                    continue
                params = set()
                for kw in node.keywords:
                    params |= {kw.arg} if kw.arg else _spread_keys(kw.value, fn, module)
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                sites.append((where, node.args[0].value, _dialects_of(path), params))
    return sites


_SITES = _call_sites()


def test_the_call_site_walk_finds_the_manager_and_both_backends():
    names = {name for _, name, _, _ in _SITES}
    assert {
        "entity_versions",
        "memory_file_get",
        "operator_tenant_mapping_put",
        "kb_lexical",
        "kb_vector_candidates",
    } <= names
    assert {d for _, name, dialects, _ in _SITES if name == "kb_vector_candidates" for d in dialects} == {
        "sqlite",
        "oracle",
    }


@pytest.mark.parametrize("where,name,dialects,params", _SITES, ids=[f"{s[0]}:{s[1]}" for s in _SITES])
def test_each_call_site_passes_exactly_the_statements_binds(where, name, dialects, params):
    for dialect in dialects:
        path = SQL / dialect / f"{name}.sql"
        assert path.exists(), f"{where} runs {name!r}, which sql/{dialect}/ lacks"
        assert sql_checks.binds(path.read_text(encoding="utf-8")) == params, (dialect, where)


def _inline_sites() -> list[tuple[str, str, set[str]]]:
    """(where, inline statement, parameters) of every `q.NAME.text` the Oracle backend binds."""
    found = []
    for path in sorted((MANAGER / "backend" / "oracle").glob("*.py")):
        module = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(module):
            if not isinstance(node, ast.Call):
                continue
            for i, arg in enumerate(node.args):
                if (
                    isinstance(arg, ast.Attribute)
                    and arg.attr == "text"
                    and isinstance(arg.value, ast.Attribute)
                    and arg.value.attr in statements.ALL
                ):
                    params = {kw.arg for kw in node.keywords if kw.arg}
                    for later in node.args[i + 1 :]:
                        params |= _dict_keys(later) or set()
                    found.append((f"{path.name}:{node.lineno}", arg.value.attr, params))
    return found


def test_each_inline_statement_is_bound_with_its_declared_parameters():
    sites = _inline_sites()
    assert {name for _, name, _ in sites} >= {"SET_IDENTITY", "SHARE_WITH_QUERY_IDENTITY", "CHANGE_MARKER"}
    wrong = [
        (where, name, sorted(params)) for where, name, params in sites if params != set(statements.ALL[name].binds)
    ]
    assert wrong == []


# -- twins ---------------------------------------------------------------------------------------


def test_sqlite_and_oracle_have_the_same_named_statements():
    sqlite, oracle = _names("sqlite"), _names("oracle")
    missing_on_oracle = sorted(sqlite - oracle - set(DIALECT_INTERNAL["sqlite"]))
    missing_on_sqlite = sorted(oracle - sqlite - set(DIALECT_INTERNAL["oracle"]))

    def todo(dialect: str, other: str, names: list[str]) -> list[str]:
        return [
            f"sql/{dialect}/{n}.sql (twin of sql/{other}/{n}.sql; binds: "
            f"{', '.join(sorted(sql_checks.binds((SQL / other / f'{n}.sql').read_text(encoding='utf-8')))) or 'none'})"
            for n in names
        ]

    assert (missing_on_oracle, missing_on_sqlite) == ([], []), "\n".join(
        [
            "write these twins (same name, binds, columns and meaning), or list a dialect-internal statement "
            "in DIALECT_INTERNAL with its reason:",
            *todo("oracle", "sqlite", missing_on_oracle),
            *todo("sqlite", "oracle", missing_on_sqlite),
        ]
    )
    assert not set(DIALECT_INTERNAL["sqlite"]) & oracle and not set(DIALECT_INTERNAL["oracle"]) & sqlite


#: twins whose rows differ on purpose, and why (every other twin returns the same columns)
DIFFERENT_COLUMNS = {
    "kb_lexical": "read only by the backend's own lexical leg (Session.kb_lexical), which maps BM25 or "
    "Oracle Text's SCORE to the protocol's (seq, score)",
    "kb_vector_candidates": "read only by the backend's own vector leg (Session.kb_vector): SQLite returns the "
    "embeddings and ranks in Python, Oracle ranks in SQL and returns the cosine",
    "recall_lexical": "read only by the backend's own recall leg (Session.recall_lexical), as kb_lexical",
    "recall_vector_candidates": "read only by the backend's own recall leg (Session.recall_vector), as "
    "kb_vector_candidates",
}
_OPEN_FOR = re.compile(r"\bOPEN\s+\w+\s+FOR\s+(SELECT\b.*?);", re.IGNORECASE | re.DOTALL)


def _result_columns(text: str, dialect: str) -> list[str] | None:
    """The column names a statement returns rows with (a SELECT, RETURNING, or a PL/SQL block's
    implicit result), None for a statement that returns no rows."""
    import sqlglot
    from sqlglot import exp

    if dialect == "oracle" and sql_checks.is_plsql(text):
        opened = _OPEN_FOR.search(sql_checks.strip_code(text))
        if opened is None:
            return None
        text = opened.group(1)
    tree = sqlglot.parse_one(text, read=dialect)
    while isinstance(tree, exp.SetOperation):
        tree = tree.left
    if isinstance(tree, exp.Select):
        return [e.alias_or_name.lower() for e in tree.selects]
    returning = tree.args.get("returning")
    return [e.alias_or_name.lower() for e in returning.expressions] if returning else None


_TWINS = sorted((_names("sqlite") & _names("oracle")) - set(DIFFERENT_COLUMNS))


@pytest.mark.parametrize("name", _TWINS)
def test_each_twin_returns_the_same_columns(name):
    sqlite = _result_columns((SQL / "sqlite" / f"{name}.sql").read_text(encoding="utf-8"), "sqlite")
    oracle = _result_columns((SQL / "oracle" / f"{name}.sql").read_text(encoding="utf-8"), "oracle")
    assert oracle == sqlite, f"sql/oracle/{name}.sql returns {oracle}, sql/sqlite/{name}.sql returns {sqlite}"


def test_the_column_check_sees_a_missing_column():
    assert _result_columns("SELECT id, row_id AS r FROM t", "sqlite") == ["id", "r"]
    assert _result_columns(
        "DECLARE c SYS_REFCURSOR; BEGIN OPEN c FOR SELECT a, b FROM t; DBMS_SQL.RETURN_RESULT(c); END;", "oracle"
    ) == ["a", "b"]
    assert _result_columns("DELETE FROM t WHERE a = 1 RETURNING a, b", "sqlite") == ["a", "b"]
    assert _result_columns("UPDATE t SET a = 1", "oracle") is None
    assert set(DIFFERENT_COLUMNS) <= _names("sqlite") & _names("oracle")


# -- no dialect above the backend ----------------------------------------------------------------

#: a dialect's name, or its driver's: code that names one branches on the backend
_DIALECT_NAMES = {"sqlite", "oracle", "sqlite3", "oracledb"}


def test_no_code_above_the_backend_names_a_dialect():
    """No dialect name, no driver import and no driver lookup (sys.modules["oracledb"]) above the backend."""
    found = []
    for folder in ("manager", "toolbox", "server"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.relative_to(ROOT).parts[:2] == ("manager", "backend"):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and node.value in _DIALECT_NAMES:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                    if any(m.split(".")[0] in _DIALECT_NAMES for m in modules):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} import")
                if isinstance(node, ast.Attribute) and node.attr == "dialect":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} .dialect")
    assert found == []


# -- the README lets a DBA review without reading Python -------------------------------------------


def _readme_oracle_section() -> str:
    """docs/oracle.md without its optional ONNX step, whose grants are not part of the install
    (sql/oracle/onnx/, run by hand)."""
    text = doc_text("oracle")
    head, _, rest = text.partition("## The in-database ONNX embedder")
    return head + ("\n## " + rest.split("\n## ", 1)[1] if "\n## " in rest else "")


def test_the_readme_lists_every_grant_the_install_makes_and_no_other():
    section = _readme_oracle_section()
    granted = [
        " ".join(sql_checks.strip_code(u).split())
        for _, u in _install_units()
        if sql_checks.strip_code(u).strip().upper().startswith("GRANT")
    ]
    listed = re.findall(r"^\| `(GRANT [^`]+)` \|", section, re.MULTILINE)
    assert sorted(granted) == sorted(listed)


def test_the_readme_names_every_table_a_vpd_policy_covers():
    section = _readme_oracle_section()
    vpd = (SQL / "oracle" / "install" / "040_vpd.sql").read_text(encoding="utf-8")
    tables = re.findall(r"'([A-Z_]+)'", vpd.split("c_tables CONSTANT t_names := t_names(", 1)[1].split(");", 1)[0])
    assert len(tables) == 20
    assert [t for t in tables if f"`{t.lower()}`" not in section] == []


def test_the_query_account_gets_read_on_the_reviewed_views_and_nothing_else():
    """The second wall of execute_query: MEMGATE_QUERY may log in and READ the qv_ views, no more;
    only MEMGATE_APP may run the context package that binds an identity."""
    grants = [
        " ".join(sql_checks.strip_code(u).split()).upper()
        for _, u in _install_units()
        if sql_checks.strip_code(u).strip().upper().startswith("GRANT")
    ]
    to_query = [g for g in grants if g.endswith(" TO MEMGATE_QUERY")]
    assert "GRANT CREATE SESSION TO MEMGATE_QUERY" in to_query
    others = [g for g in to_query if g != "GRANT CREATE SESSION TO MEMGATE_QUERY"]
    assert others and all(re.fullmatch(r"GRANT READ ON QV_[A-Z_]+ TO MEMGATE_QUERY", g) for g in others), others
    assert [g for g in grants if "MEMGATE_CTX_PKG" in g] == ["GRANT EXECUTE ON MEMGATE_CTX_PKG TO MEMGATE_APP"]
