"""Static checks of Oracle SQL and PL/SQL text, without a database: used by test_static_sql.py.

sqlglot parses SQL; PL/SQL it does not model, so PL/SQL units get a small structural check:
comments and literals close, BEGIN/IF/LOOP/CASE/CREATE PACKAGE are closed by END [IF|LOOP|CASE]
in order, the unit ends with ";", and every qualified name in a package family (DBMS_*, UTL_*,
CTX_*, memgate_*, SYS, CTXSYS) is one the docs list (ALLOWED_QUALIFIERS).
"""

from __future__ import annotations

import logging
import re

import sqlglot

from memgate.manager.backend.oracle.dialect import RESERVED_WORDS

#: Oracle SQL reserved words, upper-case: one list with admission's (the Oracle dialect's
#: reserved_bind_names). An unquoted bind with one of these names fails with ORA-01745.
RESERVED = frozenset(word.upper() for word in RESERVED_WORDS)

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
    "it line by line (README, Running on Oracle AI Database)",
    "GRANT SYSTEM PRIVILEGE": "a system privilege or role grant (no ON clause): not modelled by sqlglot; "
    "each is listed in the README for the DBA",
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
    sql = re.sub(r"&&(\w+)\.?", r"\1_subst", text)  # install substitution variables
    sql = re.sub(r"\bVECTOR\([^)]*\)", "VECTOR", sql, flags=re.IGNORECASE)  # sqlglot 30 reads VECTOR, not VECTOR(n, f)
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
