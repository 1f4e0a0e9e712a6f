"""Static checks for mistakes sqlglot accepts and Oracle or SQL*Plus refuses on first contact.

Used by test_static_first_contact.py (and test_text_index.py); the checks of single statements are
first_contact_sql.py. Each check names where its rule comes from; each reads every file it applies
to by glob, never by a hand-kept list, so install files added later are checked too.

- FILTER BY columns of an Oracle Text index fit SDATA's 249 bytes (filter_by_columns,
  column_bytes): DRG-11309 otherwise;
- the install's tables as their CREATE TABLE statements declare them (install_schema): each
  column's type, its width in bytes, and whether it is NOT NULL;
- every SQL*Plus/SQLcl script that runs install files (the Free container's setup scripts, the
  docs' DBA blocks) DEFINEs each substitution variable those files use before running them
  (undefined_substitutions): an undefined one makes SQL*Plus prompt and eat the next line;
- every Oracle statement memgate sends (oracle_units), and the SQL a PL/SQL unit holds: what it
  embeds (embedded_spans) and the literal SQL its EXECUTE IMMEDIATE statements run (dynamic_sql),
  as sqlglot reads no PL/SQL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import sqlglot
from sql_checks import embedded_spans, sqlglot_text, strip_code
from sqlglot import exp

from memgate.manager.backend.oracle.install import script_units

ROOT = Path(__file__).resolve().parents[3]
ORACLE = ROOT / "sql" / "oracle"

#: The widest FILTER BY column Oracle Text takes: "SDATA sections store tokens in a table column of
#: type VARCHAR2 (249 BYTE)" (Oracle Text Reference 26, Token Limitations for Oracle Text Indexes);
#: DRG-11309 "invalid filter by column ... column size is at most 249 bytes long" (Database Error
#: Messages), wrapped in ORA-29855 by CREATE INDEX.
FILTER_BY_MAX_BYTES = 249
#: bytes a character may take in the database character set (AL32UTF8, the default since 12.2):
#: how wide a column sized in characters (n CHAR), or with no unit under NLS_LENGTH_SEMANTICS =
#: CHAR, can be
BYTES_PER_CHAR = 4


def install_files() -> list[Path]:
    return sorted((ORACLE / "install").glob("*.sql"))


def oracle_files() -> list[Path]:
    """Every Oracle SQL file memgate ships: the install files, the ONNX step and the named statements."""
    return [*install_files(), *sorted((ORACLE / "onnx").glob("*.sql")), *sorted(ORACLE.glob("*.sql"))]


def strip_comments(text: str) -> str:
    """Text with -- and /* */ comments removed and literals kept (strip_code blanks both)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif text[i] in "qQ" and text[i + 1 : i + 2] == "'" and i + 2 < n:
            close = {"[": "]", "(": ")", "{": "}", "<": ">"}.get(text[i + 2], text[i + 2]) + "'"
            j = text.find(close, i + 3)
            j = n if j < 0 else j + 2
            out.append(text[i:j])
            i = j
        elif text[i] == "'":
            j = i + 1
            while (j := text.find("'", j)) >= 0 and text[j + 1 : j + 2] == "'":
                j += 2
            j = n if j < 0 else j + 1
            out.append(text[i:j])
            i = j
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


# -- the install's tables ------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    #: the declared type as written, e.g. VARCHAR2(200 BYTE)
    type: str
    #: the most bytes a value can take; None for a type without a width (CLOB, NUMBER, DATE, ...)
    max_bytes: int | None
    not_null: bool


_SIZED = re.compile(r"^(N?VARCHAR2?|N?CHAR|RAW)\s*\(\s*(\d+)\s*(BYTE|CHAR)?\s*\)$", re.IGNORECASE)


def column_bytes(declared: str) -> int | None:
    """The most bytes a column of this type holds; None when the type has no declared width.

    n BYTE is n; n CHAR is n x BYTES_PER_CHAR; n with no unit follows the session's
    NLS_LENGTH_SEMANTICS, which an install does not control, so it counts as characters too;
    NVARCHAR2 and NCHAR are always characters (of up to 2 bytes in AL16UTF16); RAW is bytes."""
    sized = _SIZED.match(declared.strip())
    if sized is None:
        return None
    kind, n, unit = sized.group(1).upper(), int(sized.group(2)), (sized.group(3) or "").upper()
    if kind == "RAW" or unit == "BYTE":
        return n
    if kind.startswith("N"):
        return 2 * n
    return n * BYTES_PER_CHAR


def _create_tables(unit: str) -> exp.Create | None:
    code = strip_code(unit).lstrip()
    if not re.match(r"CREATE\s+TABLE\b", code, re.IGNORECASE):
        return None
    tree = sqlglot.parse_one(sqlglot_text(unit), read="oracle")
    return tree if isinstance(tree, exp.Create) else None


def install_schema() -> dict[str, dict[str, Column]]:
    """table -> column -> Column, from every CREATE TABLE in sql/oracle/install/ (lower-case names)."""
    tables: dict[str, dict[str, Column]] = {}
    for path in install_files():
        for unit in script_units(path.read_text(encoding="utf-8")):
            tree = _create_tables(unit)
            if tree is None:
                continue
            table = tree.this.this.name.lower()
            columns = {}
            for cd in tree.find_all(exp.ColumnDef):
                kinds = {type(c.args.get("kind")) for c in cd.constraints}
                declared = cd.args["kind"].sql("oracle") if cd.args.get("kind") else ""
                written = _written_type(unit, cd.name) or declared
                not_null = bool(kinds & {exp.NotNullColumnConstraint, exp.PrimaryKeyColumnConstraint})
                columns[cd.name.lower()] = Column(written, column_bytes(written), not_null)
            tables[table] = columns
    return tables


def _written_type(unit: str, column: str) -> str | None:
    """The column's type as the file spells it (sqlglot writes VARCHAR2 as VARCHAR, drops BYTE)."""
    found = re.search(
        rf"^\s*{re.escape(column)}\s+([A-Za-z_][A-Za-z0-9_]*(?:\s*\([^)]*\))?)", unit, re.IGNORECASE | re.MULTILINE
    )
    return " ".join(found.group(1).split()) if found else None


# -- FILTER BY -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FilterBy:
    index: str
    table: str
    columns: tuple[str, ...]


_CONTEXT_INDEX = re.compile(
    r"CREATE\s+INDEX\s+(\w+)\s+ON\s+(\w+)\s*\([^)]*\)\s+INDEXTYPE\s+IS\s+CTXSYS\.CONTEXT\b(.*?)(?:\bPARAMETERS\b|\]'|;|$)",
    re.IGNORECASE | re.DOTALL,
)
_FILTER_BY = re.compile(r"\bFILTER\s+BY\s+(.*?)(?=\bORDER\s+BY\b|$)", re.IGNORECASE | re.DOTALL)


def filter_by_columns(text: str) -> list[FilterBy]:
    """Every Oracle Text index a file creates with FILTER BY, and its columns, wherever it is written:
    a CREATE INDEX statement, or the literal an EXECUTE IMMEDIATE runs (comments are left out)."""
    found = []
    for m in _CONTEXT_INDEX.finditer(strip_comments(text)):
        clause = _FILTER_BY.search(m.group(3))
        if clause:
            columns = tuple(c.strip().lower() for c in clause.group(1).split(",") if c.strip())
            found.append(FilterBy(m.group(1).lower(), m.group(2).lower(), columns))
    return found


def filter_by_problems(text: str, schema: dict[str, dict[str, Column]]) -> list[str]:
    """FILTER BY columns over FILTER_BY_MAX_BYTES, of a type without a width, or not in the schema."""
    problems = []
    for found in filter_by_columns(text):
        for column in found.columns:
            declared = schema.get(found.table, {}).get(column)
            if declared is None:
                problems.append(f"{found.index}: FILTER BY {column}, which {found.table} does not declare")
            elif declared.max_bytes is None and re.match(r"(N?CLOB|BLOB|LONG)\b", declared.type, re.IGNORECASE):
                problems.append(
                    f"{found.index}: FILTER BY {column} {declared.type}: a LOB cannot be a FILTER BY column"
                )
            elif declared.max_bytes is not None and declared.max_bytes > FILTER_BY_MAX_BYTES:
                problems.append(
                    f"{found.index}: FILTER BY {column} {declared.type} is up to {declared.max_bytes} bytes; "
                    f"Oracle Text takes at most {FILTER_BY_MAX_BYTES} (DRG-11309): narrow it, in BYTE"
                )
    return problems


# -- SQL*Plus scripts that run install files -------------------------------------------------------

#: `&name` or `&&name`: a SQL*Plus substitution variable. SQL*Plus prompts for one it has no value
#: for (SQL*Plus User's Guide, Defining Substitution Variables) and, reading its commands from a
#: heredoc or a pipe, takes the next line as the value. Only REMARK text is documented as not
#: scanned, so -- and /* */ comments count too.
_SUBSTITUTION = re.compile(r"&&?([A-Za-z_][A-Za-z0-9_$#]*)")
_DEFINE = re.compile(r"^\s*DEF(?:INE)?\s+([A-Za-z_][A-Za-z0-9_$#]*)\s*=", re.IGNORECASE)
_UNDEFINE = re.compile(r"^\s*UNDEF(?:INE)?\s+(.+)$", re.IGNORECASE)
_RUN = re.compile(r"^\s*(?:@@?|START\s+)(\S+?\.sql)\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
_VOLUME = re.compile(r"^\s*-\s*([^\s:]+):([^\s:]+)(?::ro|:rw)?\s*$", re.MULTILINE)
COMPOSE = ROOT / "config" / "oracle" / "compose.yaml"


def substitution_names(text: str) -> set[str]:
    """The SQL*Plus substitution variables a script uses, lower-cased (SQL*Plus ignores case)."""
    return {name.lower() for name in _SUBSTITUTION.findall(text)}


def sqlplus_scripts() -> list[tuple[str, str]]:
    """(where, text) of everything that runs install files through SQL*Plus or SQLcl: the Free
    container's setup scripts, and each fenced block of the docs that runs a file with @."""
    found = [
        (str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
        for path in sorted((ROOT / "config" / "oracle" / "setup").glob("*"))
        if path.is_file()
    ]
    docs = [*sorted((ROOT / "docs").glob("*.md")), *sorted(ORACLE.rglob("README.md")), ROOT / "README.md"]
    for path in docs:
        for n, block in enumerate(_FENCE.findall(path.read_text(encoding="utf-8")), 1):
            if any(_RUN.match(line) for line in block.splitlines()):
                found.append((f"{path.relative_to(ROOT)} block {n}", block))
    return found


def _mounts() -> dict[str, Path]:
    """Container folder -> repository folder, from the Free container's volumes (compose.yaml)."""
    return {
        inside.rstrip("/"): (COMPOSE.parent / host).resolve()
        for host, inside in _VOLUME.findall(COMPOSE.read_text(encoding="utf-8"))
        if host.startswith(".")
    }


def resolve_run(path: str) -> Path | None:
    """The repository file a script's @path runs: a repository-relative path, or a container path
    under one of compose.yaml's mounts; None when it names neither."""
    if not path.startswith("/"):
        return ROOT / path if (ROOT / path).is_file() else None
    for inside, host in _mounts().items():
        if path.startswith(inside + "/"):
            target = host / path[len(inside) + 1 :]
            return target if target.is_file() else None
    return None


def undefined_substitutions(script: str) -> list[str]:
    """Each file a script runs, and the substitution variables it uses that are not DEFINEd by then."""
    defined: set[str] = set()
    problems = []
    for line in script.splitlines():
        if m := _DEFINE.match(line):
            defined.add(m.group(1).lower())
        elif m := _UNDEFINE.match(line):
            defined -= {name.lower() for name in m.group(1).split()}
        elif m := _RUN.match(line):
            target = resolve_run(m.group(1))
            if target is None:
                problems.append(f"{m.group(1)}: no such file in the repository (or under a compose.yaml mount)")
                continue
            missing = sorted(substitution_names(target.read_text(encoding="utf-8")) - defined)
            if missing:
                problems.append(f"{m.group(1)} uses {', '.join('&&' + n for n in missing)}, not DEFINEd before it")
    return problems


# -- every Oracle statement memgate sends ------------------------------------------------------------


def oracle_units() -> list[tuple[str, str]]:
    """(where, text) of every Oracle statement: each unit of every install and ONNX file, every named
    statement, every inline statement of the backend (statements.py, with sql_checks' sample values)."""
    from sql_checks import INLINE_SAMPLES

    from memgate.manager.backend.oracle import statements

    units = [
        (f"{path.parent.name}/{path.stem}#{n}", unit)
        for path in [*install_files(), *sorted((ORACLE / "onnx").glob("*.sql"))]
        for n, unit in enumerate(script_units(path.read_text(encoding="utf-8")), 1)
    ]
    units += [(path.stem, path.read_text(encoding="utf-8")) for path in sorted(ORACLE.glob("*.sql"))]
    units += [
        (f"statements.{name}", inline.text.format(**INLINE_SAMPLES) if "{" in inline.text else inline.text)
        for name, inline in sorted(statements.ALL.items())
        if inline.kind != "session"
    ]
    return units


_EXECUTE_IMMEDIATE = re.compile(
    r"\bEXECUTE\s+IMMEDIATE\s+((?:[qQ]'\[.*?\]'|'(?:[^']|'')*')(?:\s*\|\|\s*(?:[qQ]'\[.*?\]'|'(?:[^']|'')*'|[\w.]+))*)",
    re.DOTALL,
)
LITERAL = re.compile(r"[qQ]'\[(.*?)\]'|'((?:[^']|'')*)'", re.DOTALL)


def dynamic_sql(text: str) -> list[str]:
    """The statements a PL/SQL unit runs with EXECUTE IMMEDIATE, as far as they are literals: each
    literal part, joined, a concatenated variable standing in as `x`."""
    found = []
    for m in _EXECUTE_IMMEDIATE.finditer(strip_comments(text)):
        parts = re.split(r"\s*\|\|\s*", m.group(1))
        pieces = []
        for part in parts:
            lit = LITERAL.fullmatch(part)
            pieces.append(
                lit.group(1) if lit and lit.group(1) is not None else lit.group(2).replace("''", "'") if lit else "x"
            )
        found.append("".join(pieces))
    return found


def sql_statements(text: str) -> list[str]:
    """The SQL a unit holds: itself when it is SQL; its embedded and literal dynamic SQL when PL/SQL
    (as strip_code text, comments out and literals blanked)."""
    from sql_checks import is_plsql

    if not is_plsql(text):
        return [strip_code(text)]
    code = strip_code(text)
    return [code[a:b] for a, b in embedded_spans(code)] + [strip_code(sql) for sql in dynamic_sql(text)]
