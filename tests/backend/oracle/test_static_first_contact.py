"""Mistakes sqlglot and the earlier static checks let through, and Oracle or SQL*Plus refuses: each
class has a check over every Oracle file memgate ships (globbed: sql/oracle/, install/, onnx/), and
a test that plants one instance and sees the check catch it.

- an Oracle Text FILTER BY column over 249 bytes (DRG-11309);
- a SQL*Plus script (the Free container's setup, the docs' DBA blocks) that runs an install file
  without DEFINEing one of its &&variables (SQL*Plus prompts and takes the next line as the value),
  and a DBA file variable `memgate init` has no value for;
"""

from __future__ import annotations

import first_contact
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
