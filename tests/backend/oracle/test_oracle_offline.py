"""The Oracle backend's parts that need no database: settings, doctor on an unreachable DSN,
execute_query admission in Oracle's grammar, the Oracle Text expression, value shaping."""

from __future__ import annotations

import array
import socket

import numpy as np
import oracledb
import pytest
from click.testing import CliRunner
from oracledb.errors import _Error as DriverError
from pydantic import ValidationError

from memgate.manager import BackendUnavailable, ConfigError, DatabaseSettings, Identity, QueryRejected, open_backend
from memgate.manager.backend.base import BinaryLength
from memgate.manager.backend.oracle.dialect import ORACLE_FUNCTIONS, ORACLE_QUERY_DIALECT
from memgate.manager.backend.oracle.kb import text_expression
from memgate.manager.backend.oracle.values import bind_value, column_name, query_cell, row_value
from memgate.manager.query.admission import admit_query
from memgate.server.cli import cli

VIEWS = {"entity_memory", "entity_memory_history", "knowledge_base_chunk"}


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once the socket is closed


@pytest.fixture
def unreachable(monkeypatch):
    for key in [k for k in __import__("os").environ if k.startswith("MEMGATE_")]:
        monkeypatch.delenv(key)
    dsn = f"127.0.0.1:{_closed_port()}/FREEPDB1"
    monkeypatch.setenv("MEMGATE_DATABASE__BACKEND", "oracle")
    monkeypatch.setenv("MEMGATE_DATABASE__DSN", dsn)
    monkeypatch.setenv("MEMGATE_DATABASE__CONNECT_TIMEOUT_S", "3")
    for account in ("OWNER", "APP", "QUERY"):
        monkeypatch.setenv(f"MEMGATE_ORACLE_{account}_PASSWORD", "not-used")
    return dsn


# -- settings and reachability -------------------------------------------------------------------


def test_doctor_says_in_one_line_that_the_database_is_unreachable_and_names_the_dsn_setting(unreachable):
    result = CliRunner().invoke(cli, ["doctor"], catch_exceptions=False)
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("[FAIL] database")]
    assert lines == [
        f"[FAIL] database: cannot reach Oracle at {unreachable!r} (DPY-6005). "
        "Check database.dsn (MEMGATE_DATABASE__DSN) and that the database is up."
    ]
    assert "Traceback" not in result.output


def test_a_tool_session_on_an_unreachable_database_is_backend_unavailable(unreachable):
    backend = open_backend(DatabaseSettings(backend="oracle", dsn=unreachable, connect_timeout_s=3))
    try:
        with pytest.raises(BackendUnavailable, match="cannot reach Oracle"):
            with backend.session(Identity(tenant="acme")):
                pass
    finally:
        backend.close()


def test_the_manager_bounds_every_oracle_round_trip_by_caps_query_timeout_s(unreachable):
    from memgate.manager import CapsSettings, MemoryManager

    backend = open_backend(DatabaseSettings(backend="oracle", dsn=unreachable, onnx_model="DOC_MODEL"))
    try:
        MemoryManager(backend, CapsSettings(query_timeout_s=7.5))
        assert backend._call_timeout_ms == 7500  # set on each acquire as Connection.call_timeout
        assert backend.database_embedder()._call_timeout_ms == 7500
    finally:
        backend.close()


@pytest.mark.parametrize(
    "error",
    [
        DriverError("DPY-4024: call timeout of 1000 ms exceeded"),
        DriverError("ORA-01013: user requested cancel", code=1013),
    ],
    ids=["thin", "thick"],
)
def test_a_call_timeout_is_a_timeout_not_an_unreachable_database(error):
    from memgate.manager import QueryTimeout
    from memgate.manager.backend.oracle.errors import is_call_timeout, translate

    exc = oracledb.DatabaseError(error)
    assert is_call_timeout(exc)
    translated = translate(exc)
    assert isinstance(translated, QueryTimeout) and translated.status == "timeout"
    assert "caps.query_timeout_s" in translated.message and "reach" not in translated.message


@pytest.mark.parametrize(
    "error",
    [
        DriverError("ORA-08180: no snapshot found based on specified time", code=8180),
        DriverError("ORA-01555: snapshot too old: rollback segment too small", code=1555),
    ],
    ids=["enable", "read"],
)
def test_an_scn_older_than_undo_retention_says_so_and_what_to_do(error):
    from memgate.manager import NotFound
    from memgate.manager.backend.oracle.errors import translate

    translated = translate(oracledb.DatabaseError(error))
    assert isinstance(translated, NotFound)
    assert "undo retention" in translated.message and "UNDO_RETENTION" in translated.hint


def test_reading_as_of_a_marker_that_names_no_scn_is_refused_before_any_round_trip():
    from memgate.manager import NotFound
    from memgate.manager.backend.oracle.backend import OracleSession

    session = OracleSession(conn=None)  # no connection is touched: the marker is refused first
    for marker in (
        {"kind": "sqlite_versions_read"},
        {"kind": "oracle_scn", "scn": "12"},
        {"kind": "oracle_scn", "scn": True},
        {"kind": "oracle_scn"},
    ):
        with pytest.raises(NotFound, match="names no Oracle SCN"), session.as_of(marker):
            pass
    assert session.in_flashback is False


def test_oracle_needs_a_dsn_and_takes_no_password_from_a_file():
    with pytest.raises(ValidationError, match="needs database.dsn"):
        DatabaseSettings(backend="oracle")
    with pytest.raises(ValidationError, match="from the environment only"):
        DatabaseSettings(backend="oracle", dsn="db:1521/x", app_password="secret")
    with pytest.raises(ValidationError, match="not an Oracle name"):
        DatabaseSettings(backend="oracle", dsn="db:1521/x", onnx_model="m; DROP TABLE x")


def test_a_missing_password_variable_is_named(monkeypatch):
    monkeypatch.delenv("MEMGATE_ORACLE_APP_PASSWORD", raising=False)
    backend = open_backend(DatabaseSettings(backend="oracle", dsn="127.0.0.1:1/x"))
    try:
        with pytest.raises(ConfigError, match="MEMGATE_ORACLE_APP_PASSWORD is not set"):
            backend.schema_version()
    finally:
        backend.close()


# -- admission in Oracle's grammar -------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT subject, NVL(content, '-') AS c FROM entity_memory WHERE ROWNUM <= 5",
        "SELECT id FROM entity_memory ORDER BY id FETCH FIRST 5 ROWS ONLY",
        "SELECT DECODE(user_id, NULL, 'shared', user_id) FROM entity_memory_history WHERE status = 'current'",
        "SELECT LISTAGG(subject, ',') WITHIN GROUP (ORDER BY subject) FROM entity_memory",
        "WITH x AS (SELECT subject FROM entity_memory) SELECT COUNT(*) FROM x",
        "SELECT TO_CHAR(SYSTIMESTAMP, 'YYYY') FROM entity_memory",
        "SELECT VECTOR_DIMENSION_COUNT(embedding) FROM knowledge_base_chunk",
        "SELECT e.subject, h.status FROM entity_memory e JOIN entity_memory_history h ON h.id = e.id",
        "SELECT entity_memory.subject FROM entity_memory WHERE EXISTS "
        "(SELECT 1 FROM knowledge_base_chunk c WHERE c.id = entity_memory.id)",
    ],
)
def test_oracle_admission_admits_plain_oracle_selects(sql):
    assert admit_query(sql, dialect=ORACLE_QUERY_DIALECT, allowed_views=VIEWS).tables <= VIEWS


@pytest.mark.parametrize(
    "sql,rule",
    [
        ("SELECT * FROM entity_memory AS OF SCN 12345", "snapshot"),
        ("SELECT * FROM entity_memory AS OF TIMESTAMP SYSTIMESTAMP - 1", "snapshot"),
        ("SELECT * FROM entity_memory VERSIONS BETWEEN SCN MINVALUE AND MAXVALUE", "syntax"),
        ("SELECT * FROM entity_memory@remote_link", "table"),
        ("SELECT * FROM entity_memory @ remote_link", "placeholder"),
        ("SELECT * FROM memgate_owner.entity_memory", "schema"),
        ("SELECT * FROM mcp_call_log", "table"),
        ("WITH FUNCTION f RETURN NUMBER IS BEGIN RETURN 1; END; SELECT f FROM dual", "one-statement"),
        ("BEGIN memgate_ctx_pkg.set_identity('globex', NULL, NULL, NULL, NULL); END;", "one-statement"),
        ("SELECT SYS_CONTEXT('MEMGATE_QCTX', 'TENANT') FROM entity_memory", "function"),
        ("SELECT DBMS_FLASHBACK.GET_SYSTEM_CHANGE_NUMBER FROM entity_memory", "qualifier"),
        (
            "SELECT e.subject FROM entity_memory e WHERE EXISTS (SELECT 1 FROM knowledge_base_chunk c "
            "WHERE c.id = DBMS_RANDOM.STRING)",
            "qualifier",
        ),
        ("SELECT sys.dbms_random.value FROM entity_memory", "schema"),
        ("SELECT * FROM entity_memory WHERE id = :id", "placeholder"),
        ("SELECT q'[;]' FROM entity_memory", "one-statement"),
        ("DELETE FROM entity_memory", "select-only"),
        ("SELECT * FROM entity_memory FOR UPDATE", None),
    ],
)
def test_oracle_admission_refuses_links_flashback_plsql_and_other_names(sql, rule):
    if rule is None:  # the READ grant refuses FOR UPDATE in the database (SELECT would allow it)
        admit_query(sql, dialect=ORACLE_QUERY_DIALECT, allowed_views=VIEWS)
        return
    with pytest.raises(QueryRejected, match=f"rule {rule}"):
        admit_query(sql, dialect=ORACLE_QUERY_DIALECT, allowed_views=VIEWS)


@pytest.mark.parametrize(
    "sql,admitted",
    [
        ("SELECT id FROM entity_memory WHERE REGEXP_LIKE(subject, '^model:[a-z-]+$')", True),
        ("SELECT REGEXP_COUNT(content, 'rag', 1, 'i') FROM entity_memory", True),
        ("SELECT REGEXP_REPLACE(subject, '[0-9]{2,4}', '#') FROM entity_memory", True),
        ("SELECT id FROM entity_memory WHERE REGEXP_LIKE(subject, '(a+)+$')", False),
        ("SELECT id FROM entity_memory WHERE REGEXP_LIKE(subject, '(x|xx)*y')", False),
        ("SELECT id FROM entity_memory WHERE REGEXP_LIKE(subject, '(a)\\1')", False),
        ("SELECT REGEXP_SUBSTR(subject, predicate) FROM entity_memory", False),
        ("SELECT REGEXP_INSTR(subject, 'a' || 'b') FROM entity_memory", False),
        (f"SELECT id FROM entity_memory WHERE REGEXP_LIKE(subject, '{'a' * 101}')", False),
    ],
)
def test_a_regexp_pattern_is_a_short_literal_with_no_back_reference_or_quantified_group(sql, admitted):
    if admitted:
        admit_query(sql, dialect=ORACLE_QUERY_DIALECT, allowed_views=VIEWS)
        return
    with pytest.raises(QueryRejected, match="rule size.*pattern must be a string literal"):
        admit_query(sql, dialect=ORACLE_QUERY_DIALECT, allowed_views=VIEWS)


def test_every_regexp_function_the_allowlist_has_is_limited():
    regexps = {f for f in ORACLE_FUNCTIONS if f.startswith("regexp_")}
    assert regexps and regexps <= set(ORACLE_QUERY_DIALECT.call_limits)


def test_a_report_bind_named_like_an_oracle_reserved_word_is_refused_when_written():
    sql = "SELECT id FROM entity_memory WHERE valid_from >= :{} AND subject = :subject"
    assert admit_query(sql.format("since"), dialect=ORACLE_QUERY_DIALECT, allowed_views=VIEWS, binds=True).binds == {
        "since",
        "subject",
    }
    for name in ("date", "user", "SESSION", "level"):
        with pytest.raises(QueryRejected, match=f"rule bind-name.*:{name} is a word Oracle reserves"):
            admit_query(sql.format(name), dialect=ORACLE_QUERY_DIALECT, allowed_views=VIEWS, binds=True)


# -- Oracle Text and values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query,expr",
    [
        ("VPD policies", "{vpd} ACCUM {policies} ACCUM {vpd policies}"),
        # not and about are stop words; near, braced, is a plain word, and so is the pair
        ("near NOT about", "{near} ACCUM {near not}"),
        (
            "x{b}c \\ d; e|f -g*",
            "{x} ACCUM {b} ACCUM {c} ACCUM {d} ACCUM {e} ACCUM {f} ACCUM {g}"
            " ACCUM {x b} ACCUM {b c} ACCUM {c d} ACCUM {d e} ACCUM {e f} ACCUM {f g}",
        ),
        (
            "snake_case Ünïcode",
            "{snake case} ACCUM {snake} ACCUM {case} ACCUM {ünïcode} ACCUM {snake} case% ACCUM {snake case ünïcode}",
        ),
        (
            "How does sqlite3.connect work?",
            "{sqlite3 connect} ACCUM {sqlite3} ACCUM {connect} ACCUM {work} ACCUM {sqlite3} connect%"
            " ACCUM {does sqlite3} ACCUM {connect work}",
        ),
        # an identifier's prefix term leaves its last part bare, so a reserved word gets none
        ("lru_cache", "{lru cache} ACCUM {lru} ACCUM {cache} ACCUM {lru} cache%"),
        ("near_about", "{near about} ACCUM {near} ACCUM {about}"),
        ("; -- ''", None),
    ],
)
def test_each_query_word_is_braced_so_none_is_oracle_text_syntax(query, expr):
    assert text_expression(query) == expr


def test_values_bind_and_come_back_as_the_manager_speaks_them():
    vector = np.array([0.5, -1.0], dtype=np.float32)
    bound = bind_value(vector)
    assert isinstance(bound, array.array) and bound.typecode == "f" and list(bound) == [0.5, -1.0]
    assert row_value(bound) == vector.astype("<f4").tobytes()
    assert bind_value(True) == 1 and bind_value("x") == "x"
    assert (column_name("TENANT_ID"), column_name("MixedCase")) == ("tenant_id", "MixedCase")


def test_query_cells_never_carry_a_lob_and_show_a_vector_by_size():
    assert query_cell(object(), "CLOB", 10) == "CLOB"
    assert query_cell(array.array("f", [1.0, 2.0, 3.0]), "VECTOR", 10) == BinaryLength(12)
    assert query_cell("x" * 50, None, 11) == "x" * 11
    assert query_cell(None, "CLOB", 10) is None
    assert oracledb.DB_TYPE_CLOB is not None


@pytest.mark.parametrize("declared", ["CLOB", "NCLOB", "BLOB", "BFILE"])
def test_a_lob_cell_renders_as_its_marker_from_the_declared_type_alone(declared):
    """The manager's cell shaping knows no driver: the backend hands over the declared type, never the locator."""
    from memgate.manager.output.cells import shape_cell

    locator = object()  # stands for a LOB locator the cursor returned; never read
    assert shape_cell(query_cell(locator, declared, 10), declared) == "<LOB>"
    assert shape_cell(query_cell(array.array("f", [1.0, 2.0]), "VECTOR", 10), "VECTOR") == "<VECTOR(2)>"


# -- the protocol ---------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol,implementation", [("Backend", "OracleBackend"), ("Session", "OracleSession")])
def test_the_oracle_backend_has_every_protocol_method_with_its_parameters(protocol, implementation):
    import inspect

    from memgate.manager.backend import base
    from memgate.manager.backend.oracle import backend as oracle

    proto, impl = getattr(base, protocol), getattr(oracle, implementation)
    methods = [n for n, f in vars(proto).items() if callable(f) and not n.startswith("_")]
    assert "run_readonly_query" in methods or "change_marker" in methods
    differ = {
        n: (str(inspect.signature(getattr(proto, n))), str(inspect.signature(getattr(impl, n, lambda: None))))
        for n in methods
        if list(inspect.signature(getattr(proto, n)).parameters)
        != list(inspect.signature(getattr(impl, n, lambda: None)).parameters)
    }
    assert differ == {}, f"{implementation} must match base.{protocol}: {differ}"
