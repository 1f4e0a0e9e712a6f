"""Mistakes sqlglot and the earlier static checks let through, and Oracle or SQL*Plus refuses: each
class has a check over every Oracle file memgate ships (globbed: sql/oracle/, install/, onnx/), and
a test that plants one instance and sees the check catch it.

- an Oracle Text FILTER BY column over 249 bytes (DRG-11309);
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
