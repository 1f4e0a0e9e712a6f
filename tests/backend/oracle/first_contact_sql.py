"""Checks of single Oracle statements for mistakes sqlglot accepts and Oracle refuses (first_contact.py
has the files, the schema and the units they read; test_static_first_contact.py runs them).

- no PL/SQL unit declares a name that is a PL/SQL reserved word (plsql_reserved_names): PLS-00103;
- no identifier, alias or bind is over 128 bytes, no SYS_CONTEXT attribute over 30
  (long_identifiers): ORA-00972;
- no statement uses another dialect's clause - LIMIT, ON CONFLICT, INSERT OR IGNORE, IFNULL - or a
  row limit with FOR UPDATE (foreign_clauses): ORA-00933, ORA-00904, ORA-02014;
- nothing writes '' (or an expression that is '' on SQLite) into a NOT NULL column, in SQL
  (empty_into_not_null) or as a literal the manager passes (python_empty_writes): ORA-01400,
  since Oracle stores '' as NULL;
- no CTE, alias or bind is named like a 23ai type: VECTOR, JSON, BOOLEAN (type_named).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import sqlglot
from first_contact import LITERAL, ORACLE, ROOT, Column, dynamic_sql, embedded_spans, sql_statements, strip_comments
from sql_checks import is_plsql, sqlglot_text, strip_code
from sqlglot import exp

# -- PL/SQL reserved words as declared names ----------------------------------------------------------

#: PL/SQL reserved words: "Reserved words ... can never be used as identifiers" (PL/SQL Language
#: Reference 12.2 to 23, Appendix D "PL/SQL Reserved Words and Keywords", Table D-1 PL/SQL Reserved
#: Words). A variable, constant, parameter, loop index, cursor, type or subprogram named by one does
#: not compile: PLS-00103 ("Encountered the symbol ..."), though sqlglot and the block balance check
#: take it. SQL's own reserved words are sql_checks.RESERVED.
PLSQL_RESERVED = frozenset(
    (
        "ALL", "ALTER", "AND", "ANY", "AS", "ASC", "AT", "BEGIN", "BETWEEN", "BY", "CASE", "CHECK", "CLUSTERS",
        "CLUSTER", "COLAUTH", "COLUMNS", "COMPRESS", "CONNECT", "CRASH", "CREATE", "CURSOR", "DECLARE", "DEFAULT",
        "DESC", "DISTINCT", "DROP", "ELSE", "END", "EXCEPTION", "EXCLUSIVE", "FETCH", "FOR", "FROM", "FUNCTION",
        "GOTO", "GRANT", "GROUP", "HAVING", "IDENTIFIED", "IF", "IN", "INDEX", "INDEXES", "INSERT", "INTERSECT",
        "INTO", "IS", "LIKE", "LOCK", "MINUS", "MODE", "NOCOMPRESS", "NOT", "NOWAIT", "NULL", "OF", "ON", "OPTION",
        "OR", "ORDER", "OVERLAPS", "PROCEDURE", "PUBLIC", "RESOURCE", "REVOKE", "SELECT", "SHARE", "SIZE", "SQL",
        "START", "SUBTYPE", "TABAUTH", "TABLE", "THEN", "TO", "TYPE", "UNION", "UNIQUE", "UPDATE", "VALUES", "VIEW",
        "VIEWS", "WHEN", "WHERE", "WITH",
    )
)  # fmt: skip
#: the types a PL/SQL declaration names (PL/SQL Language Reference, PL/SQL Data Types), so that
#: `name TYPE` is told from a statement
_PLSQL_TYPES = frozenset(
    (
        "NUMBER", "INTEGER", "INT", "SMALLINT", "DECIMAL", "FLOAT", "REAL", "PLS_INTEGER", "BINARY_INTEGER",
        "SIMPLE_INTEGER", "NATURAL", "NATURALN", "POSITIVE", "POSITIVEN", "SIGNTYPE", "BOOLEAN", "VARCHAR2",
        "VARCHAR", "NVARCHAR2", "CHAR", "NCHAR", "STRING", "LONG", "RAW", "CLOB", "NCLOB", "BLOB", "BFILE", "DATE",
        "TIMESTAMP", "INTERVAL", "BINARY_DOUBLE", "BINARY_FLOAT", "SYS_REFCURSOR", "ROWID", "UROWID", "JSON",
        "VECTOR", "XMLTYPE", "EXCEPTION",
    )
)  # fmt: skip
_DECLARED = re.compile(
    r"(?:\bDECLARE\b|\bIS\b|\bAS\b|;|\(|,)\s*([A-Za-z][\w$#]*)\s+(?:(?:CONSTANT|IN|OUT|NOCOPY)\s+)*"
    r"([A-Za-z][\w$#]*(?:\.[A-Za-z][\w$#]*)?(?:%(?:ROW)?TYPE)?)",
    re.IGNORECASE,
)
_NAMED = re.compile(r"\b(PROCEDURE|FUNCTION|CURSOR|TYPE|SUBTYPE)\s+([A-Za-z][\w$#]*)", re.IGNORECASE)
_DECLARATION_WORDS = frozenset(("TYPE", "SUBTYPE", "CURSOR", "PROCEDURE", "FUNCTION", "PRAGMA"))
_LOOP_INDEX = re.compile(r"\bFOR\s+([A-Za-z][\w$#]*)\s+IN\b", re.IGNORECASE)


def procedural_code(text: str) -> str:
    """A PL/SQL unit's strip_code() text with the SQL it embeds blanked: what PL/SQL itself parses."""
    code = strip_code(text)
    for start, end in reversed(embedded_spans(code)):
        code = code[:start] + " " * (end - start) + code[end:]
    return code


def plsql_declared_names(text: str) -> set[str]:
    """The names a PL/SQL unit declares: variables, constants, parameters, loop indexes, cursors,
    types, subtypes and subprograms (upper-cased). `%` survives strip_code, so x t.c%TYPE counts."""
    code = procedural_code(text)
    named = {m.group(2).upper() for m in _NAMED.finditer(code)}
    types = {m.group(2).upper() for m in _NAMED.finditer(code) if m.group(1).upper() in ("TYPE", "SUBTYPE")}
    declared = set()
    for m in _DECLARED.finditer(code):
        name, kind = m.group(1).upper(), m.group(2).upper()
        if name in _DECLARATION_WORDS:
            continue  # TYPE t IS ..., CURSOR c IS ...: _NAMED reads those
        if kind in _PLSQL_TYPES or kind in types or kind.endswith("%TYPE") or kind.endswith("%ROWTYPE"):
            declared.add(name)
    return declared | named | {m.group(1).upper() for m in _LOOP_INDEX.finditer(code)}


def plsql_reserved_names(text: str) -> list[str]:
    """Names a PL/SQL unit declares that are PL/SQL reserved words (PLS-00103)."""
    return sorted(plsql_declared_names(text) & PLSQL_RESERVED) if is_plsql(text) else []


# -- identifiers Oracle finds too long ----------------------------------------------------------------

#: "the maximum length of identifier names for most types of database objects is 128 bytes" since
#: 12.2 (SQL Language Reference, Database Object Naming Rules); a longer one is ORA-00972.
IDENTIFIER_MAX_BYTES = 128
#: SYS_CONTEXT's parameter "cannot exceed 30 bytes in length" (SQL Language Reference, SYS_CONTEXT)
CONTEXT_ATTRIBUTE_MAX_BYTES = 30
_QUOTED = re.compile(r'"([^"]*)"')
_WORD = re.compile(r"(?<![\w$#])[A-Za-z][A-Za-z0-9_$#]*")
_SYS_CONTEXT = re.compile(r"SYS_CONTEXT\s*\(\s*'[^']*'\s*,\s*'([^']*)'", re.IGNORECASE)


def long_identifiers(text: str) -> list[str]:
    """Identifiers, aliases and bind names over 128 bytes (quoted or not; literals and comments are
    not names), and SYS_CONTEXT attributes over 30 bytes."""
    code = strip_code(text)
    names = _QUOTED.findall(code) + _WORD.findall(_QUOTED.sub(" ", code))
    found = [f"{n[:40]}... ({len(n.encode())} bytes)" for n in names if len(n.encode()) > IDENTIFIER_MAX_BYTES]
    found += [
        f"SYS_CONTEXT attribute {a!r} ({len(a.encode())} bytes)"
        for a in _SYS_CONTEXT.findall(strip_comments(text))
        if len(a.encode()) > CONTEXT_ATTRIBUTE_MAX_BYTES
    ]
    return found


# -- other dialects' clauses --------------------------------------------------------------------------

#: clauses of SQLite (and PostgreSQL) that sqlglot's Oracle dialect reads and Oracle does not
FOREIGN_CLAUSES = (
    (
        re.compile(r"(?<![:\w$#])LIMIT\b", re.IGNORECASE),
        "LIMIT: Oracle's row limit is FETCH FIRST n ROWS ONLY (ORA-00933)",
    ),
    (re.compile(r"\bON\s+CONFLICT\b", re.IGNORECASE), "ON CONFLICT: Oracle writes it as MERGE, or catches ORA-00001"),
    (re.compile(r"\bINSERT\s+OR\s+(?:IGNORE|REPLACE)\b", re.IGNORECASE), "INSERT OR IGNORE/REPLACE: SQLite only"),
    (re.compile(r"\b(?:IFNULL|GROUP_CONCAT)\s*\(", re.IGNORECASE), "IFNULL/GROUP_CONCAT: SQLite functions (ORA-00904)"),
)
_ROW_LIMIT = re.compile(r"\bFETCH\s+(?:FIRST|NEXT)\b|\bOFFSET\s+\S+\s+ROWS?\b", re.IGNORECASE)
_FOR_UPDATE = re.compile(r"\bFOR\s+UPDATE\b", re.IGNORECASE)


def foreign_clauses(text: str) -> list[str]:
    """Other dialects' clauses in a unit's SQL, and a row-limiting clause with FOR UPDATE, which
    Oracle refuses ("you cannot specify this clause with the for_update_clause", SQL Language
    Reference, SELECT, row_limiting_clause; ORA-02014)."""
    found = []
    for sql in sql_statements(text):
        found += [why for pattern, why in FOREIGN_CLAUSES if pattern.search(sql)]
        if _ROW_LIMIT.search(sql) and _FOR_UPDATE.search(sql):
            found.append(
                "FETCH FIRST/OFFSET with FOR UPDATE: Oracle refuses a row limit on a locking query (ORA-02014)"
            )
    return sorted(set(found))


# -- '' into a NOT NULL column ------------------------------------------------------------------------

_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like, exp.ILike, exp.In, exp.Is)


def _empty_text(value: exp.Expression) -> bool:
    """True when the value can be '' on SQLite - a '' literal anywhere but in a comparison - which on
    Oracle is NULL ("Oracle Database currently treats a character value with a length of zero as
    null", SQL Language Reference, Nulls)."""
    for lit in value.find_all(exp.Literal):
        if not (lit.is_string and lit.this == ""):
            continue
        node, compared = lit, False
        while node is not value and node.parent is not None:
            node = node.parent
            compared = compared or isinstance(node, _COMPARISONS)
        if not compared:
            return True
    return False


def _merge_assignments(node: exp.Merge) -> list[tuple[str, str, exp.Expression]]:
    """A MERGE's writes, each value read through its USING subquery's select list (k.value -> :value)."""
    table = node.this.name.lower()
    using = node.args.get("using")
    alias = using.alias_or_name.lower() if using is not None else ""
    selected = using.this.expressions if isinstance(using, exp.Subquery) and isinstance(using.this, exp.Select) else []
    source = {e.alias_or_name.lower(): e.this if isinstance(e, exp.Alias) else e for e in selected}

    def resolve(v: exp.Expression) -> exp.Expression:
        if isinstance(v, exp.Column) and v.table.lower() == alias and v.name.lower() in source:
            return source[v.name.lower()]
        return v

    out = []
    for when in node.args["whens"].expressions:
        then = when.args.get("then")
        if isinstance(then, exp.Update):
            out += [(table, a.this.name.lower(), resolve(a.expression)) for a in then.expressions]
        elif isinstance(then, exp.Insert) and isinstance(then.expression, exp.Tuple):
            cols = [c.name.lower() for c in then.this.expressions]
            out += [(table, c, resolve(v)) for c, v in zip(cols, then.expression.expressions, strict=False)]
    return out


def _assignments(tree: exp.Expression) -> list[tuple[str, str, exp.Expression]]:
    """(table, column, value) of every column an INSERT, UPDATE or MERGE writes."""
    out: list[tuple[str, str, exp.Expression]] = []
    for node in tree.find_all(exp.Insert, exp.Update, exp.Merge):
        if isinstance(node, exp.Merge):
            out += _merge_assignments(node)
        elif isinstance(node.parent, exp.When):
            continue  # a MERGE's branch, read with its MERGE
        elif isinstance(node, exp.Update):
            table = node.this.name.lower()
            out += [(table, a.this.name.lower(), a.expression) for a in node.expressions if isinstance(a, exp.EQ)]
        elif isinstance(node.this, exp.Schema):
            table, cols = node.this.this.name.lower(), [c.name.lower() for c in node.this.expressions]
            source = node.expression
            rows = [t.expressions for t in source.expressions] if isinstance(source, exp.Values) else []
            if isinstance(source, exp.Select):
                rows = [[e.this if isinstance(e, exp.Alias) else e for e in source.expressions]]
            for row in rows:
                out += [(table, c, v) for c, v in zip(cols, row, strict=False)]
    return out


def _parse(sql: str) -> exp.Expression | None:
    try:
        return sqlglot.parse_one(sqlglot_text(sql), read="oracle")
    except sqlglot.errors.ParseError:
        return None


def _trees(text: str) -> list[exp.Expression]:
    """The statements of a unit sqlglot can read, literals kept (a '' literal is what the checks below seek)."""
    return [tree for sql in _statements_with_literals(text) if (tree := _parse(sql)) is not None]


def _not_null_writes(
    tree: exp.Expression, schema: dict[str, dict[str, Column]]
) -> Iterator[tuple[str, str, exp.Expression]]:
    """(table, column, value) of each write of a statement into a column declared NOT NULL."""
    for table, column, value in _assignments(tree):
        declared = schema.get(table, {}).get(column)
        if declared is not None and declared.not_null:
            yield table, column, value


def empty_into_not_null(text: str, schema: dict[str, dict[str, Column]]) -> list[str]:
    """'' (or an expression that is '' on SQLite) written to a NOT NULL column (ORA-01400 on Oracle),
    and a NOT NULL column declared DEFAULT ''."""
    found = []
    for tree in _trees(text):
        found += [
            f"{table}.{column} is NOT NULL and gets {value.sql('oracle')}"
            for table, column, value in _not_null_writes(tree, schema)
            if _empty_text(value)
        ]
        if isinstance(tree, exp.Create):
            table = tree.this.this.name.lower()
            for cd in tree.find_all(exp.ColumnDef):
                kinds = {type(c.args.get("kind")): c.args.get("kind") for c in cd.constraints}
                default = kinds.get(exp.DefaultColumnConstraint)
                if exp.NotNullColumnConstraint in kinds and default is not None and _empty_text(default.this):
                    found.append(f"{table}.{cd.name.lower()} is NOT NULL with DEFAULT ''")
    return found


def _statements_with_literals(text: str) -> list[str]:
    """Like sql_statements, but with literals kept (a '' literal is what this check looks for)."""
    kept = strip_comments(text)
    if not is_plsql(text):
        return [kept]
    # the spans are found with the literals blanked (same length), then cut from the text that has them
    return [kept[a:b] for a, b in embedded_spans(_blank_literals(kept))] + dynamic_sql(text)


def _blank_literals(text: str) -> str:
    """Literals replaced by spaces of the same length: offsets stay those of `text`."""
    return LITERAL.sub(lambda m: " " * len(m.group(0)), text)


def not_null_binds(text: str, schema: dict[str, dict[str, Column]]) -> set[str]:
    """The binds a statement writes as they are into a NOT NULL column: a '' passed there is NULL on Oracle."""
    found = set()
    for tree in _trees(text):
        for _table, _column, value in _not_null_writes(tree, schema):
            while isinstance(value, (exp.Paren, exp.Cast)):
                value = value.this
            if isinstance(value, exp.Placeholder):
                found.add(str(value.this).lower())
    return found


# -- '' from the manager into a NOT NULL column -------------------------------------------------------

_FETCHES = {"fetch_all", "fetch_one", "fetch_page", "execute"}


def _dict_of(node: ast.AST, scope: ast.AST) -> dict[str, ast.AST] | None:
    """A dict literal (or dict(...) call), or the one a name is bound to in the same function."""
    if isinstance(node, ast.Name):
        for n in ast.walk(scope):
            if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets):
                return _dict_of(n.value, scope)
        return None
    if isinstance(node, ast.Dict):
        return {k.value: v for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant)}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        return {k.arg: k.value for k in node.keywords if k.arg}
    return None


def _is_empty_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == ""


def python_empty_writes(schema: dict[str, dict[str, Column]], root: Path = ROOT / "manager") -> list[str]:
    """Code that passes a literal "" where Oracle writes it into a NOT NULL column: as a named
    statement's bind that goes there as it is, or as a value of Session.insert(table, row)."""
    statements: dict[str, set[str]] = {}

    def into_not_null(name: str) -> set[str]:
        if name not in statements:
            path = ORACLE / f"{name}.sql"
            statements[name] = not_null_binds(path.read_text(encoding="utf-8"), schema) if path.exists() else set()
        return statements[name]

    found = []
    for path in sorted(root.rglob("*.py")):
        module = ast.parse(path.read_text(encoding="utf-8"))
        for fn in [f for f in ast.walk(module) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]:
            for call in [c for c in ast.walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)]:
                where = f"{path.relative_to(root)}:{call.lineno}"
                first = call.args[0] if call.args else None
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    continue
                if call.func.attr in _FETCHES:
                    found += [
                        f"{where}: {first.value} binds {k.arg}='', which it writes into a NOT NULL column"
                        for k in call.keywords
                        if k.arg and _is_empty_str(k.value) and k.arg.lower() in into_not_null(first.value)
                    ]
                elif call.func.attr == "insert" and len(call.args) > 1:
                    row = _dict_of(call.args[1], fn) or {}
                    columns = schema.get(first.value, {})
                    found += [
                        f"{where}: insert into {first.value} writes {column}='', a NOT NULL column"
                        for column, value in row.items()
                        if _is_empty_str(value) and columns.get(str(column), Column("", None, False)).not_null
                    ]
    return found


# -- 23ai's new type names as names -------------------------------------------------------------------

#: data types 23ai added (SQL Language Reference 23, Data Types: VECTOR, JSON, BOOLEAN); not reserved
#: words, but a name that is one reads as the type where a type may stand (kb_hybrid's CTE `vector`
#: was one), so no CTE, alias or bind of memgate's is named so. The older type names are reserved.
TYPE_NAMES = frozenset(("VECTOR", "JSON", "BOOLEAN"))
_BIND_NAME = re.compile(r"(?<![:\w]):([A-Za-z][A-Za-z0-9_$#]*)")


def type_named(text: str) -> list[str]:
    """CTE names, table and column aliases and binds of a unit's SQL that are a 23ai type name."""
    found = {f":{b}" for b in _BIND_NAME.findall(strip_code(text)) if b.upper() in TYPE_NAMES}
    for sql in sql_statements(text):
        tree = _parse(sql)
        if tree is None:
            continue
        for node in tree.find_all(exp.CTE, exp.TableAlias, exp.Alias):
            name = node.alias if not isinstance(node, exp.TableAlias) else node.name
            if name and name.upper() in TYPE_NAMES:
                found.add(name)
    return sorted(found)
