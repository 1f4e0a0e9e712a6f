"""Static checks of Oracle SQL and PL/SQL text, without a database: used by test_static_sql.py.

sqlglot parses SQL; PL/SQL it does not model, so PL/SQL units get a small structural check:
comments and literals close, BEGIN/IF/LOOP/CASE/CREATE PACKAGE are closed by END [IF|LOOP|CASE]
in order, the unit ends with ";", and every qualified name in a package family (DBMS_*, UTL_*,
CTX_*, memgate_*, SYS, CTXSYS) is one the docs list (ALLOWED_QUALIFIERS).

What sqlglot accepts and Oracle refuses is checked on top (test_static_oracle_semantics.py):
identifiers and binds that are Oracle reserved words (RESERVED, the SQL Language Reference's
table), and SQL-only functions in PL/SQL's procedural statements (SQL_ONLY_FUNCTIONS); a PL/SQL
unit's embedded SQL is cut out by a small tokenizer (procedural_tokens, embedded_sql), in place of
a PL/SQL grammar: the one on PyPI, antlr-plsql, had its last release (0.9.1) in 2019.
"""

from __future__ import annotations

import logging
import re

import sqlglot

#: Oracle SQL reserved words, kept here as the table reads. Source: Oracle Database SQL Language
#: Reference (19c, and unchanged in 23ai/26ai), Appendix D "Oracle SQL Reserved Words and Keywords",
#: "Oracle SQL Reserved Words": "You cannot use Oracle SQL reserved words as nonquoted identifiers."
#: (Note 1 there: COLUMN_VALUE and NESTED_TABLE_ID are reserved as attribute names; Note 2: ROWID
#: not as a column name, quoted or not.) The 11.2 table also listed PRIVILEGES; the 19c one does not.
#: An unquoted identifier with one of these names fails on the server (ORA-00904, ORA-00923), an
#: unquoted bind with ORA-01745; sqlglot accepts both. test_static_oracle_semantics.py checks that
#: admission's list (the Oracle dialect's reserved_bind_names) is this one.
RESERVED = frozenset(
    (
        "ACCESS", "ADD", "ALL", "ALTER", "AND", "ANY", "AS", "ASC", "AUDIT", "BETWEEN", "BY", "CHAR", "CHECK",
        "CLUSTER", "COLUMN", "COLUMN_VALUE", "COMMENT", "COMPRESS", "CONNECT", "CREATE", "CURRENT", "DATE",
        "DECIMAL", "DEFAULT", "DELETE", "DESC", "DISTINCT", "DROP", "ELSE", "EXCLUSIVE", "EXISTS", "FILE",
        "FLOAT", "FOR", "FROM", "GRANT", "GROUP", "HAVING", "IDENTIFIED", "IMMEDIATE", "IN", "INCREMENT",
        "INDEX", "INITIAL", "INSERT", "INTEGER", "INTERSECT", "INTO", "IS", "LEVEL", "LIKE", "LOCK", "LONG",
        "MAXEXTENTS", "MINUS", "MLSLABEL", "MODE", "MODIFY", "NESTED_TABLE_ID", "NOAUDIT", "NOCOMPRESS", "NOT",
        "NOWAIT", "NULL", "NUMBER", "OF", "OFFLINE", "ON", "ONLINE", "OPTION", "OR", "ORDER", "PCTFREE",
        "PRIOR", "PUBLIC", "RAW", "RENAME", "RESOURCE", "REVOKE", "ROW", "ROWID", "ROWNUM", "ROWS", "SELECT",
        "SESSION", "SET", "SHARE", "SIZE", "SMALLINT", "START", "SUCCESSFUL", "SYNONYM", "SYSDATE", "TABLE",
        "THEN", "TO", "TRIGGER", "UID", "UNION", "UNIQUE", "UPDATE", "USER", "VALIDATE", "VALUES", "VARCHAR",
        "VARCHAR2", "VIEW", "WHENEVER", "WHERE", "WITH",
    )
)  # fmt: skip

#: qualifiers memgate's SQL may name, each with where the docs list it
ALLOWED_QUALIFIERS = {
    "DBMS_SESSION": "PL/SQL Packages and Types Reference, DBMS_SESSION (SET_CONTEXT, CLEAR_CONTEXT, "
    "CLEAR_ALL_CONTEXT, SET_IDENTIFIER, CLEAR_IDENTIFIER)",
    "DBMS_RLS": "PL/SQL Packages and Types Reference, DBMS_RLS (ADD_POLICY, DROP_POLICY, DYNAMIC)",
    "DBMS_FLASHBACK": "PL/SQL Packages and Types Reference, DBMS_FLASHBACK (GET_SYSTEM_CHANGE_NUMBER, "
    "ENABLE_AT_SYSTEM_CHANGE_NUMBER, DISABLE)",
    "DBMS_LOB": "PL/SQL Packages and Types Reference, DBMS_LOB (SUBSTR)",
    "DBMS_SQL": "PL/SQL Packages and Types Reference, DBMS_SQL (RETURN_RESULT); python-oracledb, "
    "Cursor.getimplicitresults",
    "CTX_DDL": "Oracle Text Reference, CTX_DDL (CREATE_PREFERENCE, SET_ATTRIBUTE, OPTIMIZE_INDEX)",
    "DBMS_VECTOR": "PL/SQL Packages and Types Reference 23, DBMS_VECTOR (LOAD_ONNX_MODEL), sql/oracle/onnx/",
    "CTXSYS": "Oracle Text Reference: the CTXSYS schema owns CTX_DDL and the CONTEXT indextype",
    "SYS": "the SYS schema owns DBMS_RLS and DBMS_FLASHBACK (GRANT EXECUTE ON SYS.<package>)",
    "MEMGATE_OWNER": "memgate's schema (sql/oracle/install/010_accounts.sql)",
    "MEMGATE_QUERY": "memgate's read-only account, owner of the query synonyms (015)",
    "MEMGATE_CTX_PKG": "memgate's context package (030)",
    "MEMGATE_GUARD_PKG": "memgate's write guards (022)",
    "MEMGATE_VPD_PKG": "memgate's VPD policy function (040)",
}
_PACKAGE_FAMILY = re.compile(
    r"^(DBMS_\w+|UTL_\w+|CTX_\w+|OWA_\w+|HTP|HTF|APEX_\w+|SYS|CTXSYS|MEMGATE_\w+)$", re.IGNORECASE
)
_QUALIFIED = re.compile(r"(?<![\w$#:.])([A-Za-z][A-Za-z0-9_$#]*)\s*\.\s*([A-Za-z][A-Za-z0-9_$#]*)")
_BIND = re.compile(r"""(?<![:\w]):(?:"([A-Za-z][A-Za-z0-9_$#]*)"|([A-Za-z][A-Za-z0-9_$#]*))""")
_PLSQL_START = re.compile(
    r"^\s*(DECLARE|BEGIN|CREATE\s+(OR\s+REPLACE\s+)?(PACKAGE|TRIGGER|PROCEDURE|FUNCTION))\b", re.IGNORECASE
)
_Q_CLOSE = {"[": "]", "(": ")", "{": "}", "<": ">"}

#: statement kinds sqlglot 30 does not model (it logs "Falling back to parsing as a 'Command'"),
#: with why each is still right; any other fallback fails the check
UNMODELLED = {
    "CREATE USER": "CREATE USER IF NOT EXISTS (23ai syntax): not modelled by sqlglot; the DBA reviews "
    "it line by line (docs/oracle.md)",
    "GRANT SYSTEM PRIVILEGE": "a system privilege or role grant (no ON clause): not modelled by sqlglot; "
    "each is listed in docs/oracle.md for the DBA",
    "CREATE CONTEXT": "CREATE [OR REPLACE] CONTEXT ... USING: not modelled by sqlglot",
    "CREATE SYNONYM": "CREATE [OR REPLACE] SYNONYM: not modelled by sqlglot",
}


class _Fallbacks(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.hits = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "Falling back to parsing as a" in record.getMessage():
            self.hits += 1


_FALLBACK = _Fallbacks()
logging.getLogger("sqlglot").addHandler(_FALLBACK)


def strip_code(text: str) -> str:
    """Text with comments removed and literals blanked; ValueError on one that does not close."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ValueError("unterminated /* comment")
            i = j + 2
        elif c in "qQ" and text[i + 1 : i + 2] == "'" and i + 2 < n:
            close = _Q_CLOSE.get(text[i + 2], text[i + 2])
            j = text.find(close + "'", i + 3)
            if j < 0:
                raise ValueError("unterminated q'' literal")
            out.append(" '' ")
            i = j + 2
        elif c == "'":
            j = i + 1
            while True:
                j = text.find("'", j)
                if j < 0:
                    raise ValueError("unterminated '...' literal")
                if text[j + 1 : j + 2] == "'":
                    j += 2
                    continue
                break
            out.append(" '' ")
            i = j + 1
        elif c == '"':
            j = text.find('"', i + 1)
            if j < 0:
                raise ValueError('unterminated "identifier"')
            out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def is_plsql(text: str) -> bool:
    return bool(_PLSQL_START.match(strip_code(text)))


def check_plsql(text: str) -> None:
    """Raise ValueError unless the PL/SQL unit's blocks balance and it ends with ';'."""
    code = strip_code(text)
    words = [w.upper() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_$#]*|;", code)]
    stack: list[str] = []
    for k, w in enumerate(words):
        prev = words[k - 1] if k else ""
        nxt = words[k + 1] if k + 1 < len(words) else ""
        if w == "END":
            want = nxt if nxt in ("IF", "LOOP", "CASE") else None
            if not stack:
                raise ValueError(f"END without an opener (word {k})")
            top = stack.pop()
            if want and top != want:
                raise ValueError(f"END {want} closes {top}")
            if not want and top not in ("BEGIN", "CASE", "PACKAGE"):
                raise ValueError(f"END closes {top}")
        elif prev == "END":
            continue
        elif w in ("BEGIN", "IF", "LOOP", "CASE"):
            stack.append(w)
        elif w == "PACKAGE" and prev in ("CREATE", "REPLACE"):
            stack.append("PACKAGE")
    if stack:
        raise ValueError(f"unclosed: {stack}")
    if not code.rstrip().endswith(";"):
        raise ValueError("a PL/SQL unit ends with ';'")


def unknown_qualifiers(text: str) -> list[str]:
    """Qualified names in a package family (DBMS_*, CTX_*, memgate_*, ...) that ALLOWED_QUALIFIERS lacks."""
    code = strip_code(text)
    found = {m.group(1).upper() for m in _QUALIFIED.finditer(code) if _PACKAGE_FAMILY.match(m.group(1))}
    return sorted(found - set(ALLOWED_QUALIFIERS))


def parse_sql(text: str) -> str | None:
    """Parse one SQL statement with sqlglot's Oracle dialect: None if it parsed as exactly one
    modelled statement, else the UNMODELLED kind it is; ValueError for anything else."""
    code = strip_code(text).strip()
    if code.endswith(";"):
        raise ValueError("a SQL statement has no trailing ';' (the '/' line or the driver runs it)")
    sql = sqlglot_text(text)
    before = _FALLBACK.hits
    trees = [t for t in sqlglot.parse(sql, read="oracle") if t is not None]
    if len(trees) != 1:
        raise ValueError(f"{len(trees)} statements where one was expected")
    if _FALLBACK.hits == before:
        return None
    kind = statement_kind(code)
    if kind not in UNMODELLED:
        raise ValueError(f"sqlglot does not model this {kind!r} statement and it is not listed as unmodelled")
    return kind


def statement_kind(code: str) -> str:
    words = code.upper().split()
    if words[:1] == ["GRANT"]:
        return "GRANT SYSTEM PRIVILEGE" if " ON " not in f" {' '.join(words)} " else "GRANT"
    if words[:3] == ["CREATE", "OR", "REPLACE"]:
        words = ["CREATE", *words[3:]]
    return " ".join(words[:2])


def binds(text: str) -> set[str]:
    """The bind names of a statement, lower-cased (comments and literals hold none)."""
    return {(q or u).lower() for q, u in _BIND.findall(strip_code(text))}


def reserved_binds(text: str) -> list[str]:
    """Unquoted bind names that are Oracle reserved words (ORA-01745 on the server)."""
    return sorted(u for _q, u in _BIND.findall(strip_code(text)) if u and u.upper() in RESERVED)


# -- SQL-only functions in procedural PL/SQL -------------------------------------------------------

#: SQL functions PL/SQL expressions cannot use, each with its category. Source: PL/SQL Language
#: Reference (19c, 23ai), "SQL Functions in PL/SQL Expressions": "In PL/SQL expressions, you can
#: use all SQL functions except: aggregate functions (such as AVG and COUNT), ... analytic
#: functions (such as LAG and RATIO_TO_REPORT), conversion function BIN_TO_NUM, data mining
#: functions (such as CLUSTER_ID and FEATURE_VALUE), encoding and decoding functions (such as
#: DECODE and DUMP), model functions (such as ITERATION_NUMBER and PREVIOUS), object reference
#: functions (such as REF and VALUE), XML functions (such as APPENDCHILDXML and EXISTSNODE),
#: CUBE_TABLE, DATAOBJ_TO_PARTITION, LNNVL, NVL2, SYS_CONNECT_BY_PATH, SYS_TYPEID, WIDTH_BUCKET"
#: (also the JSON aggregates JSON_ARRAYAGG and JSON_OBJECTAGG). The categories are filled from the
#: SQL Language Reference's function lists (Encoding and Decoding: DECODE, DUMP, ORA_HASH,
#: STANDARD_HASH, VSIZE). Used in a procedural statement, each fails to compile with PLS-00204
#: ("function or pseudo-column may be used inside a SQL statement only") or PLS-00201.
SQL_ONLY_FUNCTIONS: dict[str, str] = {
    **dict.fromkeys(("DECODE", "DUMP", "ORA_HASH", "STANDARD_HASH", "VSIZE"), "encoding and decoding"),
    **dict.fromkeys(
        ("AVG", "COUNT", "SUM", "MIN", "MAX", "LISTAGG", "MEDIAN", "STDDEV", "VARIANCE", "COLLECT"), "aggregate"
    ),
    **dict.fromkeys(("JSON_ARRAYAGG", "JSON_OBJECTAGG", "XMLAGG"), "aggregate (JSON/XML)"),
    **dict.fromkeys(
        ("LAG", "LEAD", "RANK", "DENSE_RANK", "ROW_NUMBER", "RATIO_TO_REPORT", "NTILE", "FIRST_VALUE", "LAST_VALUE"),
        "analytic",
    ),
    **dict.fromkeys(("CLUSTER_ID", "FEATURE_VALUE", "PREDICTION", "PREDICTION_PROBABILITY"), "data mining"),
    **dict.fromkeys(("ITERATION_NUMBER", "PREVIOUS", "PRESENTNNV", "PRESENTV"), "model"),
    **dict.fromkeys(("REF", "DEREF", "MAKE_REF", "REFTOHEX"), "object reference"),
    **dict.fromkeys(("APPENDCHILDXML", "EXISTSNODE", "EXTRACTVALUE", "XMLELEMENT", "XMLFOREST"), "XML"),
    **dict.fromkeys(
        (
            "BIN_TO_NUM",
            "CUBE_TABLE",
            "DATAOBJ_TO_PARTITION",
            "LNNVL",
            "NVL2",
            "SYS_CONNECT_BY_PATH",
            "SYS_TYPEID",
            "WIDTH_BUCKET",
        ),
        "named in the list itself",
    ),
}
_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_$#]*|[();.,]")
_SQL_OPENERS = {"SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "MERGE"}
#: a DML word after one of these is a trigger's event (BEFORE INSERT OR UPDATE OF c ON t), not a statement
_TRIGGER_EVENT = {"BEFORE", "AFTER", "OR", "OF", ",", "INSTEAD"}


def procedural_tokens(text: str) -> list[str]:
    """The upper-cased tokens of a PL/SQL unit that PL/SQL itself evaluates: every embedded SQL
    statement (SELECT ... INTO, DML, OPEN ... FOR SELECT, a cursor FOR loop's query, a subquery)
    is cut out, from its first word to its ';' or to the ')' that closes the parenthesis it opened in."""
    tokens = [t.upper() for t in _TOKEN.findall(strip_code(text))]
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t, prev = tokens[i], tokens[i - 1] if i else ""
        if t in _SQL_OPENERS and prev != "." and prev not in _TRIGGER_EVENT:
            depth, in_paren = 0, prev == "("
            while i < len(tokens):
                if tokens[i] == "(":
                    depth += 1
                elif tokens[i] == ")":
                    if depth == 0 and in_paren:
                        break  # the ')' that closes the subquery's parenthesis stays procedural
                    depth -= 1
                elif tokens[i] == ";" and depth <= 0:
                    break
                i += 1
            continue
        out.append(t)
        i += 1
    return out


def sql_only_calls(text: str) -> list[str]:
    """SQL-only functions (SQL_ONLY_FUNCTIONS) called in a PL/SQL unit's procedural statements."""
    tokens = procedural_tokens(text)
    return sorted(
        {
            f"{t} ({SQL_ONLY_FUNCTIONS[t]})"
            for k, t in enumerate(tokens[:-1])
            if t in SQL_ONLY_FUNCTIONS and tokens[k + 1] == "(" and (not k or tokens[k - 1] != ".")
        }
    )


def embedded_spans(code: str) -> list[tuple[int, int]]:
    """Where the SQL statements a PL/SQL unit embeds are, in its strip_code() text (the regions
    procedural_tokens cuts out): from the first word to its ';' or to the ')' that closes it."""
    spans = [(m.start(), m.group(0).upper()) for m in _TOKEN.finditer(code)]
    found: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        t, prev = spans[i][1], spans[i - 1][1] if i else ""
        if t in _SQL_OPENERS and prev != "." and prev not in _TRIGGER_EVENT:
            start, depth, in_paren = spans[i][0], 0, prev == "("
            while i < len(spans):
                tok = spans[i][1]
                if tok == "(":
                    depth += 1
                elif tok == ")":
                    if depth == 0 and in_paren:
                        break
                    depth -= 1
                elif tok == ";" and depth <= 0:
                    break
                i += 1
            found.append((start, spans[i][0] if i < len(spans) else len(code)))
            continue
        i += 1
    return found


def embedded_sql(text: str) -> list[str]:
    """The SQL statements embedded in a PL/SQL unit (the regions procedural_tokens cuts out), as text
    sqlglot can read: comments and literals blanked, a SELECT's INTO list dropped."""
    code = strip_code(text)
    return [
        re.sub(r"\bINTO\s+[\w$#.:]+(\s*,\s*[\w$#.:]+)*\s+(?=FROM\b)", "", code[start:end], flags=re.IGNORECASE)
        for start, end in embedded_spans(code)
    ]


# -- reserved words as identifiers -------------------------------------------------------------------

#: reserved words that are also pseudo-columns or functions without parentheses: legal, unquoted, as a
#: bare column reference (SELECT ROWNUM, USER, LEVEL), never as a name a statement defines
PSEUDO_COLUMNS = frozenset({"ROWNUM", "ROWID", "LEVEL", "USER", "UID", "SYSDATE", "COLUMN_VALUE", "NESTED_TABLE_ID"})


def sqlglot_text(text: str) -> str:
    """A statement as sqlglot 30 reads it: install substitution variables named, VECTOR(n, f) as VECTOR."""
    sql = re.sub(r"&&(\w+)\.?", r"\1_subst", text)
    return re.sub(r"\bVECTOR\([^)]*\)", "VECTOR", sql, flags=re.IGNORECASE)


def reserved_identifiers(sql: str) -> list[str]:
    """Unquoted identifiers of one SQL statement (columns, aliases, table aliases, JSON_TABLE and
    CREATE TABLE columns) that are Oracle reserved words: ORA-00904/ORA-00923 on the server, though
    sqlglot accepts them. ValueError when sqlglot cannot read the statement."""
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sqlglot_text(sql), read="oracle")
    except sqlglot.errors.ParseError as exc:
        raise ValueError(f"sqlglot cannot read it: {str(exc).splitlines()[0]}") from exc
    found = set()
    for node in tree.find_all(exp.Identifier):
        name = node.name.upper()
        if node.quoted or name not in RESERVED:
            continue
        parent = node.parent
        bare_column = isinstance(parent, exp.Column) and parent.this is node and not parent.table
        if bare_column and name in PSEUDO_COLUMNS:
            continue
        found.add(node.name)
    return sorted(found)


def _statements():
    from memgate.manager.backend.oracle import statements

    return statements


#: sample values for the {placeholders} of inline statements, so every one can be parsed and checked
INLINE_SAMPLES = {
    "table": "entity_memory",
    "columns": "id, tenant_id",
    "binds": ":c0, :c1",
    "model": "doc_model",
    # the retention templates' composed parts (manager/backend/retention_store.py)
    "source": "entity_memory t JOIN memory_store o ON o.id = t.source_id",
    "where": "t.tenant_id = :tenant AND (t.content IS NULL OR "
    + _statements().RETENTION_DIFFERS.format(column="t.content", bind="marker")
    + ")",
    "order": "t.id",
    "key": "id",
    "in_keys": _statements().RETENTION_IN_JSON.format(bind="keys"),
    "assignments": "content = :v_content",
}
