"""Mistakes sqlglot and the earlier static checks let through, and Oracle or SQL*Plus refuses: each
class has a check over every Oracle file memgate ships (globbed: sql/oracle/, install/, onnx/), and
a test that plants one instance and sees the check catch it.

- an Oracle Text FILTER BY column over 249 bytes (DRG-11309);
- a SQL*Plus script (the Free container's setup, the docs' DBA blocks) that runs an install file
  without DEFINEing one of its &&variables (SQL*Plus prompts and takes the next line as the value),
  and a DBA file variable `memgate init` has no value for;
- a PL/SQL reserved word (SIZE, SHARE, MODE, ...) declared as a name (PLS-00103);
- an identifier, alias or bind over 128 bytes, a SYS_CONTEXT attribute over 30 (ORA-00972);
- LIMIT, ON CONFLICT and the like, or FETCH FIRST with FOR UPDATE (ORA-00933, ORA-02014);
- '' or an expression that is '' on SQLite written to a NOT NULL column, in SQL or as a literal the
  manager passes (ORA-01400: Oracle's '' is NULL);
- a CTE, alias or bind named like a 23ai type (VECTOR, JSON, BOOLEAN).
"""

from __future__ import annotations

import first_contact
import first_contact_sql
import pytest

SCHEMA = first_contact.install_schema()
FILES = first_contact.oracle_files()


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_every_filter_by_column_fits_oracle_texts_249_bytes(path):
    assert first_contact.filter_by_problems(path.read_text(encoding="utf-8"), SCHEMA) == []


def test_a_filter_by_column_over_249_bytes_is_caught():
    """023 as first written: FILTER BY tenant_id, collection, both VARCHAR2(256) (DRG-11309)."""
    planted = """EXECUTE IMMEDIATE q'[CREATE INDEX kb_chunk_text_ix ON knowledge_base_chunk (content)
      INDEXTYPE IS CTXSYS.CONTEXT
      FILTER BY tenant_id, collection
      PARAMETERS ('LEXER memgate_lexer')]';"""
    problems = first_contact.filter_by_problems(planted, SCHEMA)
    assert problems == [
        "kb_chunk_text_ix: FILTER BY collection VARCHAR2(256) is up to 1024 bytes; Oracle Text takes at most 249 "
        "(DRG-11309): narrow it, in BYTE"
    ]
    assert first_contact.column_bytes("VARCHAR2(249 BYTE)") == 249
    assert first_contact.column_bytes("VARCHAR2(200)") == 800  # no unit: NLS_LENGTH_SEMANTICS may be CHAR
    assert first_contact.column_bytes("VARCHAR2(62 CHAR)") == 248 and first_contact.column_bytes("CLOB") is None
    lob = "CREATE INDEX i ON knowledge_base_chunk (content) INDEXTYPE IS CTXSYS.CONTEXT FILTER BY content"
    assert first_contact.filter_by_problems(lob, SCHEMA) == [
        "i: FILTER BY content CLOB: a LOB cannot be a FILTER BY column"
    ]


# -- SQL*Plus scripts that run install files ----------------------------------------------------

SCRIPTS = first_contact.sqlplus_scripts()


def test_the_scripts_that_run_install_files_are_all_found():
    where = {w for w, _ in SCRIPTS}
    assert "config/oracle/setup/01_memgate_accounts.sh" in where
    assert any(w.startswith("docs/oracle.md block") for w in where)
    assert any(w.startswith("sql/oracle/install/README.md block") for w in where)


@pytest.mark.parametrize("where,script", SCRIPTS, ids=[w for w, _ in SCRIPTS])
def test_each_script_defines_every_substitution_variable_the_files_it_runs_use(where, script):
    assert first_contact.undefined_substitutions(script) == []


def test_a_script_that_runs_an_install_file_without_defining_its_variable_is_caught():
    """The setup script as it was: 010 uses &&memgate_query_temp_mb (and now &&memgate_query_temp_file),
    which it did not DEFINE."""
    planted = """sqlplus -s / as sysdba <<SQL
DEFINE memgate_owner_password = "x"
DEFINE memgate_app_password = "x"
DEFINE memgate_query_password = "x"
DEFINE memgate_tablespace = USERS
@/opt/memgate/install/010_accounts.sql
@/opt/memgate/install/015_query_synonyms.sql
SQL"""
    assert first_contact.undefined_substitutions(planted) == [
        "/opt/memgate/install/010_accounts.sql uses &&memgate_query_temp_file, &&memgate_query_temp_mb, "
        "not DEFINEd before it"
    ]
    # order counts: a DEFINE after the @ line is too late; UNDEFINE takes a value away
    late = "@sql/oracle/onnx/010_dba_model_access.sql\nDEFINE onnx_directory = '/x'"
    assert first_contact.undefined_substitutions(late) == [
        "sql/oracle/onnx/010_dba_model_access.sql uses &&onnx_directory, not DEFINEd before it"
    ]
    undefined = "DEFINE onnx_directory = '/x'\nUNDEFINE onnx_directory\n@sql/oracle/onnx/010_dba_model_access.sql"
    assert first_contact.undefined_substitutions(undefined) != []
    assert first_contact.undefined_substitutions("@/opt/elsewhere/x.sql") == [
        "/opt/elsewhere/x.sql: no such file in the repository (or under a compose.yaml mount)"
    ]
    assert first_contact.substitution_names("-- R&D &&A.M &b") == {"d", "a", "b"}  # comments count


def test_memgate_init_gives_every_dba_file_variable_a_value_and_the_owner_files_use_none(monkeypatch):
    """The installer replaces &&name itself (install.substitute): the DBA files' names must all have a
    value, and the owner files, run with none, must use none."""
    from memgate.manager import DatabaseSettings
    from memgate.manager.backend.oracle import install
    from memgate.manager.backend.oracle.schema import OracleSchema

    for account in ("OWNER", "APP", "QUERY"):
        monkeypatch.setenv(f"MEMGATE_ORACLE_{account}_PASSWORD", "not-used")
    values = OracleSchema(DatabaseSettings(backend="oracle", dsn="127.0.0.1:1/x"), accounts=None).dba_values()
    install_dir = first_contact.ORACLE / "install"
    used = set().union(
        *(first_contact.substitution_names((install_dir / f"{n}.sql").read_text()) for n in install.DBA_FILES)
    )
    assert used and used <= set(values)
    assert [
        n for n in install.owner_files() if first_contact.substitution_names((install_dir / f"{n}.sql").read_text())
    ] == []


# -- every Oracle statement memgate sends ---------------------------------------------------------

UNITS = first_contact.oracle_units()
IDS = [w for w, _ in UNITS]


def test_every_oracle_file_and_inline_statement_is_a_unit_here():
    where = {w.split("#")[0] for w in IDS}
    on_disk = {f"{p.parent.name}/{p.stem}" for p in first_contact.install_files()} | {
        p.stem for p in first_contact.ORACLE.glob("*.sql")
    }
    assert on_disk <= where and any(w.startswith("statements.") for w in where)


@pytest.mark.parametrize("where,text", UNITS, ids=IDS)
def test_no_plsql_unit_declares_a_plsql_reserved_word(where, text):
    assert first_contact_sql.plsql_reserved_names(text) == [], "PLS-00103: rename it"


@pytest.mark.parametrize("where,text", UNITS, ids=IDS)
def test_no_identifier_alias_or_bind_is_over_128_bytes(where, text):
    assert first_contact_sql.long_identifiers(text) == [], "ORA-00972: identifier is too long"


@pytest.mark.parametrize("where,text", UNITS, ids=IDS)
def test_no_statement_uses_another_dialects_clause(where, text):
    assert first_contact_sql.foreign_clauses(text) == []


@pytest.mark.parametrize("where,text", UNITS, ids=IDS)
def test_nothing_writes_empty_text_into_a_not_null_column(where, text):
    assert first_contact_sql.empty_into_not_null(text, SCHEMA) == [], "ORA-01400: Oracle stores '' as NULL"


@pytest.mark.parametrize("where,text", UNITS, ids=IDS)
def test_no_cte_alias_or_bind_is_named_like_a_23ai_type(where, text):
    assert first_contact_sql.type_named(text) == []


def test_the_manager_passes_no_literal_empty_text_into_a_not_null_column():
    assert first_contact_sql.python_empty_writes(SCHEMA) == []


# -- each check catches a planted instance --------------------------------------------------------


def test_a_plsql_reserved_word_declared_as_a_name_is_caught():
    """030's memgate_ctx_pkg had a procedure named share (SHARE is PL/SQL-reserved)."""
    assert first_contact_sql.plsql_reserved_names("DECLARE size PLS_INTEGER; BEGIN size := 1; END;") == ["SIZE"]
    assert first_contact_sql.plsql_reserved_names(
        "CREATE OR REPLACE PACKAGE BODY p AS\n  PROCEDURE share(p_handle VARCHAR2, mode VARCHAR2) IS\n"
        "  BEGIN NULL; END share;\nEND p;"
    ) == ["MODE", "SHARE"]
    assert first_contact_sql.plsql_reserved_names("BEGIN FOR start IN 1 .. 3 LOOP NULL; END LOOP; END;") == ["START"]
    # a statement is not a declaration, and the SQL a block embeds is SQL's business
    assert (
        first_contact_sql.plsql_reserved_names(
            "DECLARE TYPE t_names IS TABLE OF VARCHAR2(8); n PLS_INTEGER; BEGIN SELECT COUNT(*) INTO n FROM t "
            "WHERE mode = 1; IF n > 0 THEN NULL; END IF; END;"
        )
        == []
    )


def test_an_identifier_over_128_bytes_is_caught():
    alias = "a" * 129
    assert first_contact_sql.long_identifiers(f"SELECT c.id FROM knowledge_base_chunk {alias}") == [
        f"{'a' * 40}... (129 bytes)"
    ]
    assert first_contact_sql.long_identifiers(f'SELECT 1 AS "{"é" * 65}" FROM dual') == [f"{'é' * 40}... (130 bytes)"]
    assert first_contact_sql.long_identifiers(f"SELECT :{'b' * 130} FROM dual") != []
    assert first_contact_sql.long_identifiers(
        "SELECT SYS_CONTEXT('MEMGATE_CTX', 'A_VERY_LONG_ATTRIBUTE_NAME_HERE') FROM dual"
    )
    assert first_contact_sql.long_identifiers(f"SELECT '{'x' * 200}' FROM dual -- {'y' * 200}") == []


def test_limit_on_conflict_and_a_row_limit_with_for_update_are_caught():
    assert first_contact_sql.foreign_clauses("SELECT id FROM t ORDER BY id LIMIT 1") == [
        "LIMIT: Oracle's row limit is FETCH FIRST n ROWS ONLY (ORA-00933)"
    ]
    assert first_contact_sql.foreign_clauses("INSERT INTO t (a) VALUES (:a) ON CONFLICT DO NOTHING") == [
        "ON CONFLICT: Oracle writes it as MERGE, or catches ORA-00001"
    ]
    locked = "FETCH FIRST/OFFSET with FOR UPDATE: Oracle refuses a row limit on a locking query (ORA-02014)"
    assert first_contact_sql.foreign_clauses("SELECT id FROM t FETCH FIRST 1 ROWS ONLY FOR UPDATE") == [locked]
    assert first_contact_sql.foreign_clauses(
        "BEGIN FOR r IN (SELECT id FROM t ORDER BY id FETCH FIRST 1 ROWS ONLY FOR UPDATE) LOOP NULL; END LOOP; END;"
    ) == [locked]
    assert first_contact_sql.foreign_clauses("BEGIN EXECUTE IMMEDIATE 'DELETE FROM t LIMIT 5'; END;") != []
    # Oracle's own: a bind named limit, QUOTA UNLIMITED, PL/SQL's BULK COLLECT ... LIMIT, a comment
    assert first_contact_sql.foreign_clauses("SELECT a FROM t FETCH FIRST :limit ROWS ONLY -- not LIMIT 1") == []
    assert first_contact_sql.foreign_clauses("CREATE USER u IDENTIFIED BY p QUOTA UNLIMITED ON users") == []
    assert (
        first_contact_sql.foreign_clauses("DECLARE c SYS_REFCURSOR; BEGIN FETCH c BULK COLLECT INTO v LIMIT 10; END;")
        == []
    )


def test_empty_text_into_a_not_null_column_is_caught_in_sql_and_from_the_manager(tmp_path):
    assert first_contact_sql.empty_into_not_null(
        "INSERT INTO entity_memory (id, tenant_id, subject, predicate, content) VALUES (:id, :t, :s, :p, '')", SCHEMA
    ) == ["entity_memory.content is NOT NULL and gets ''"]
    assert first_contact_sql.empty_into_not_null(
        "UPDATE toolbox_memory SET usage_notes = COALESCE(:notes, '') WHERE id = :id", SCHEMA
    ) == ["toolbox_memory.usage_notes is NOT NULL and gets COALESCE(:notes, '')"]
    assert first_contact_sql.empty_into_not_null(
        "MERGE INTO tenant_mapping m USING (SELECT :kind AS kind, '' AS value FROM dual) k ON (m.kind = k.kind) "
        "WHEN NOT MATCHED THEN INSERT (kind, value, tenant_id) VALUES (k.kind, k.value, :tenant)",
        SCHEMA,
    ) == ["tenant_mapping.value is NOT NULL and gets ''"]
    assert first_contact_sql.empty_into_not_null(
        "CREATE TABLE IF NOT EXISTS x (a VARCHAR2(9) DEFAULT '' NOT NULL)", SCHEMA
    )
    # a comparison with '' writes nothing; a nullable column may take it (Oracle reads it back as NULL)
    assert first_contact_sql.empty_into_not_null("UPDATE memory_file SET content = '' WHERE path <> ''", SCHEMA) == []
    (tmp_path / "writer.py").write_text(
        "def write(session, now):\n"
        '    session.execute("kb_document_replace", id="d", title="", now=now)\n'
        '    row = {"id": "e", "tenant_id": "acme", "content": ""}\n'
        '    session.insert("entity_memory", row)\n'
    )
    found = first_contact_sql.python_empty_writes(SCHEMA, root=tmp_path)
    assert [f.split(": ", 1)[1] for f in found] == [
        "kb_document_replace binds title='', which it writes into a NOT NULL column",
        "insert into entity_memory writes content='', a NOT NULL column",
    ]


def test_a_23ai_type_name_as_a_cte_or_bind_is_caught():
    """kb_hybrid.sql as it was: its vector leg was the CTE `vector`, bound to :vector."""
    assert first_contact_sql.type_named(
        "WITH vector AS (SELECT seq FROM t WHERE VECTOR_DISTANCE(e, :vector, COSINE) < 1) SELECT seq FROM vector"
    ) == [":vector", "vector"]
    assert first_contact_sql.type_named("SELECT 1 AS json FROM dual d") == ["json"]
