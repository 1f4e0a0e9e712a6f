"""What python-oracledb hands the manager for a LOB or an IS JSON column, proved with the driver's own
objects and no database: its FetchInfo (built from its OracleMetadata), a Connection object that
never connected, and the Var its cursor makes.

- an IS JSON CLOB, which the driver would decode to a dict, reaches the manager as its exact text;
- the app and owner connections carry the handler (execute_query's does not: it never reads a LOB);
- every connection the backend obtains goes through fetch_types.prepare_connection;
- the schema's IS JSON and LOB columns, and the statements that read them (also through a PL/SQL
  block's implicit result, which fetch_lobs=False does not reach), are the ones the handler covers.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import oracledb
import pytest
import sql_checks
from oracledb import thin_impl
from oracledb.base_impl import OracleMetadata

from memgate.manager import DatabaseSettings
from memgate.manager.backend.oracle import connect as oracle_connect
from memgate.manager.backend.oracle.backend import OracleSession
from memgate.manager.backend.oracle.fetch_types import TEXT_ACCOUNTS, fetch_as_text, prepare_connection
from memgate.manager.backend.oracle.install import script_units

ROOT = Path(__file__).resolve().parents[3]
ORACLE = ROOT / "manager" / "backend" / "oracle"
INSTALL = ROOT / "sql" / "oracle" / "install"

# -- the driver's own objects, without a database ------------------------------------------------


def fetch_info(name: str, type_code, *, is_json: bool = False, max_size: int = 0) -> oracledb.FetchInfo:
    """A FetchInfo as the driver builds it for a column: FetchInfo._from_impl over an OracleMetadata.

    OracleMetadata's attributes are read-only from Python; its pickle state (Cython's, the
    attributes in name order, private ones first) is how one is made here. Each attribute is read
    back, so a driver that changes that layout fails this helper loudly, not a test quietly."""
    meta = OracleMetadata()
    state = list(meta.__reduce_cython__()[1][2])
    public = sorted(n for n in dir(OracleMetadata) if not n.startswith("_"))
    offset = len(state) - len(public)
    wanted = {"name": name, "dbtype": type_code, "is_json": is_json, "max_size": max_size, "buffer_size": max_size}
    for key, value in wanted.items():
        state[offset + public.index(key)] = value
    meta.__setstate_cython__(tuple(state))
    assert {key: getattr(meta, key) for key in wanted} == wanted, "OracleMetadata's pickle layout changed"
    return oracledb.FetchInfo._from_impl(meta)


@pytest.fixture
def offline_connection():
    """A python-oracledb Connection that never connected: cursors and Vars work, round trips do not."""
    conn = oracledb.Connection.__new__(oracledb.Connection)
    conn._impl, conn._pool = thin_impl.ThinConnImpl(), None
    yield conn
    conn._impl = None


class _Described:
    """What OracleSession._rows reads of a cursor: its description (the driver's FetchInfo objects)."""

    def __init__(self, *infos: oracledb.FetchInfo):
        self.description = list(infos)


def test_an_is_json_clob_reaches_the_manager_as_its_exact_text(offline_connection):
    prepare_connection(offline_connection, "app")
    info = fetch_info("TOOL_SCHEMA", oracledb.DB_TYPE_CLOB, is_json=True)
    assert info.is_json and info.type_code is oracledb.DB_TYPE_CLOB
    cursor = offline_connection.cursor()
    stored = '{"type": "object",  "properties": {"b": {}, "a": {}}}'  # odd spacing and key order: kept as is

    var = offline_connection.outputtypehandler(cursor, info)
    assert var.type is oracledb.DB_TYPE_LONG and var.outconverter is None
    var.setvalue(0, stored)
    rows = OracleSession._rows(_Described(info), [(var.getvalue(0),)], "toolbox_active")
    assert rows == [{"tool_schema": stored}] and isinstance(rows[0]["tool_schema"], str)
    assert json.loads(rows[0]["tool_schema"])["type"] == "object"  # manager/registry/toolbox.py reads it so
    # Without the handler the driver decodes the column (its is_json default, before fetch_lobs):
    # a dict, which json.loads refuses and which no longer has the stored text's bytes.
    decoded = cursor._impl._build_json_converter_fn()(stored)
    assert isinstance(decoded, dict)
    with pytest.raises(TypeError, match="the JSON object must be str"):
        json.loads(decoded)


def test_each_lob_and_json_kind_has_its_fetch_type(offline_connection):
    cursor = offline_connection.cursor()
    kinds = {
        oracledb.DB_TYPE_CLOB: oracledb.DB_TYPE_LONG,
        oracledb.DB_TYPE_NCLOB: oracledb.DB_TYPE_LONG_NVARCHAR,
        oracledb.DB_TYPE_BLOB: oracledb.DB_TYPE_LONG_RAW,
    }
    for db_type, fetched_as in kinds.items():
        assert fetch_as_text(cursor, fetch_info("C", db_type)).type is fetched_as
    varchar_json = fetch_as_text(cursor, fetch_info("J", oracledb.DB_TYPE_VARCHAR, is_json=True, max_size=4000))
    assert varchar_json.type is oracledb.DB_TYPE_VARCHAR and varchar_json.outconverter is None
    native = fetch_as_text(cursor, fetch_info("J", oracledb.DB_TYPE_JSON, is_json=True))
    assert native.type is oracledb.DB_TYPE_JSON and native.outconverter({"a": [1, "é"]}) == '{"a":[1,"é"]}'
    assert fetch_as_text(cursor, fetch_info("N", oracledb.DB_TYPE_NUMBER)) is None
    assert fetch_as_text(cursor, fetch_info("V", oracledb.DB_TYPE_VARCHAR, max_size=64)) is None


class _StandInPool:
    """python-oracledb's pool, where no database runs: acquire hands out the offline connection."""

    def __init__(self, conn):
        self.conn = conn

    def acquire(self):
        return self.conn


@pytest.fixture
def accounts(offline_connection, monkeypatch):
    """The backend's Accounts, its pools standing in for python-oracledb's: each hands out the offline connection."""
    for account in ("OWNER", "APP", "QUERY"):
        monkeypatch.setenv(f"MEMGATE_ORACLE_{account}_PASSWORD", "not-used")
    monkeypatch.setattr(oracle_connect.oracledb, "create_pool", lambda **_kw: _StandInPool(offline_connection))
    return oracle_connect.Accounts(DatabaseSettings(backend="oracle", dsn="127.0.0.1:1/x"))


def test_the_app_and_owner_connections_fetch_text_and_the_query_connection_keeps_locators(accounts):
    assert accounts.acquire("app").outputtypehandler is fetch_as_text
    assert accounts.acquire("owner").outputtypehandler is fetch_as_text
    assert accounts.acquire("query").outputtypehandler is None  # execute_query shows <LOB>, reads none
    assert TEXT_ACCOUNTS == {"app", "owner", "admin"}


def test_every_connection_the_backend_obtains_goes_through_prepare_connection():
    """A function that gets a connection (oracledb.connect, a pool's acquire) also calls prepare_connection."""
    unprepared = []
    for path in sorted(ORACLE.glob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(fn, ast.FunctionDef):
                continue
            calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)]
            names = {ast.unparse(c.func) for c in calls}
            obtains = "oracledb.connect" in names or any(
                isinstance(c.func, ast.Attribute) and c.func.attr == "acquire" and "pool(" in ast.unparse(c.func.value)
                for c in calls
            )
            if obtains and "prepare_connection" not in names:
                unprepared.append(f"{path.name}:{fn.name}")
    assert unprepared == []


# -- the schema's LOB and IS JSON columns, and the statements that read them ----------------------

_LOB_COLUMN = re.compile(r"^\s+(\w+)\s+(CLOB|NCLOB|BLOB|JSON)\b(.*)$", re.MULTILINE)
#: a column a later schema version adds: 020's add_column('TABLE', 'COLUMN', 'TYPE ...'), or ALTER TABLE t ADD (c TYPE)
_ADDED_LOB = re.compile(
    r"add_column\(\s*'(\w+)'\s*,\s*'(\w+)'\s*,\s*'(CLOB|NCLOB|BLOB|JSON)\b([^']*)'"
    r"|ALTER\s+TABLE\s+(\w+)\s+ADD\s*\(?\s*(\w+)\s+(CLOB|NCLOB|BLOB|JSON)\b([^,)]*)",
    re.IGNORECASE,
)


def _kind(kind: str, rest: str) -> str:
    kind = kind.upper()
    return "JSON type" if kind == "JSON" else "JSON" if "IS JSON" in rest.upper() else kind


def schema_lob_columns() -> dict[tuple[str, str], str]:
    """(table, column) -> 'JSON' (an IS JSON CLOB), 'CLOB', 'BLOB' or 'JSON type', from the CREATE TABLEs
    and added columns of every install file (globbed: a file added later is inventoried too)."""
    found = {}
    for path in sorted(INSTALL.glob("*.sql")):
        for unit in script_units(path.read_text(encoding="utf-8")):
            table = re.match(
                r"\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)", sql_checks.strip_code(unit), re.IGNORECASE
            )
            if table is not None:
                for name, kind, rest in _LOB_COLUMN.findall(unit):
                    found[(table.group(1).lower(), name.lower())] = _kind(kind, rest)
            for m in _ADDED_LOB.finditer(unit):
                t1, c1, k1, r1, t2, c2, k2, r2 = m.groups()
                found[((t1 or t2).lower(), (c1 or c2).lower())] = _kind(k1 or k2, r1 or r2 or "")
    return found


def _returned_columns(text: str) -> tuple[list[str], bool]:
    """The columns a named statement returns, and whether through a PL/SQL block's implicit result."""
    import sqlglot
    from sqlglot import exp

    implicit = sql_checks.is_plsql(text)
    if implicit:
        opened = re.search(
            r"\bOPEN\s+\w+\s+FOR\s+(SELECT\b.*?);", sql_checks.strip_code(text), re.IGNORECASE | re.DOTALL
        )
        if opened is None:
            return [], True
        text = opened.group(1)
    tree = sqlglot.parse_one(text, read="oracle")
    while isinstance(tree, exp.SetOperation):
        tree = tree.left
    if not isinstance(tree, exp.Select):
        return [], implicit
    if any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and e.is_star) for e in tree.selects):
        table = tree.args["from_"].this.name.lower()
        return [f"{table}.*"], implicit
    return [e.alias_or_name.lower() for e in tree.selects], implicit


def test_the_schema_has_is_json_clobs_and_lobs_and_no_json_type_column():
    columns = schema_lob_columns()
    assert {("toolbox_memory", "tool_schema"), ("toolbox_memory", "access_policy"), ("mcp_call_log", "cited_ids")} <= {
        c for c, k in columns.items() if k == "JSON"
    }
    # every install file is read, not only 020: 024's candidate evidence, 025's erasure counts
    assert (
        columns[("memory_candidate", "evidence_json")] == "JSON" and columns[("erasure_log", "counts_json")] == "JSON"
    )
    assert columns[("knowledge_base_chunk", "content")] == "CLOB" and columns[("image_memory", "bytes")] == "BLOB"
    # fetch_types serialises a JSON-type value once (there is no stored text); no memgate column is one
    assert "JSON type" not in columns.values()


def test_every_statement_reading_a_lob_or_json_column_is_covered_by_the_handler(accounts):
    """Each named statement that returns a LOB or IS JSON column, and how it arrives: a SQL cursor
    (fetch_lobs=False covers LOBs, not IS JSON) or an implicit result (covers neither, so a LOB
    arrives as a locator, unread when the session gives its connection back). The connection the
    app's pool hands out must turn each kind found into a str or bytes, with no decoding."""
    columns = schema_lob_columns()
    by_name: dict[str, set[str]] = {}
    for (table, column), kind in columns.items():
        by_name.setdefault(column, set()).add(kind)
        by_name.setdefault(f"{table}.*", set()).add(kind)
    reading: dict[str, set[str]] = {}
    implicit_lobs = []
    for path in sorted((ROOT / "sql" / "oracle").glob("*.sql")):
        returned, implicit = _returned_columns(path.read_text(encoding="utf-8"))
        kinds = set().union(*(by_name.get(c, set()) for c in returned))
        if kinds:
            reading[path.stem] = kinds
        if implicit and kinds & {"CLOB", "BLOB"}:
            implicit_lobs.append(path.stem)
    assert {"toolbox_active", "guideline_current", "context_rows_toolbox_memory", "operator_context_manifest"} <= set(
        reading
    )
    # kb_source_item returned a block's temporary CLOB as an implicit result; it is one SELECT now
    assert {"kb_source_item", "kb_document_chunk_texts"} <= set(reading) and implicit_lobs == []
    conn = accounts.acquire("app")
    assert conn.outputtypehandler is not None, (
        f"the app connection has no output type handler: {sorted(reading)} read LOB or IS JSON columns, "
        f"{implicit_lobs} through implicit results"
    )
    cursor = conn.cursor()
    as_db_type = {"JSON": oracledb.DB_TYPE_CLOB, "CLOB": oracledb.DB_TYPE_CLOB, "BLOB": oracledb.DB_TYPE_BLOB}
    for kind in set().union(*reading.values()):
        var = conn.outputtypehandler(cursor, fetch_info("C", as_db_type[kind], is_json=kind == "JSON"))
        assert var is not None and var.type in (oracledb.DB_TYPE_LONG, oracledb.DB_TYPE_LONG_RAW), kind
        assert var.outconverter is None, kind
