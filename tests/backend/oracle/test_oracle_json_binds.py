"""The JSON id and term lists JSON_TABLE reads are bound as CLOB once longer than a VARCHAR2 bind.

python-oracledb binds a str over 4,000 bytes as LONG, which JSON_TABLE refuses; a context window
naming more than about 60 to 130 rows made its id list that long. Checked without a database:
which binds are JSON documents, when they become CLOB, and that the driver's cursor takes it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import oracledb
from oracledb import thin_impl

from memgate.manager.backend.oracle.values import VARCHAR2_BIND_BYTES, json_document_binds, long_document_sizes

SQL = Path(__file__).resolve().parents[3] / "sql" / "oracle"


def test_every_json_table_document_bind_of_the_named_statements_is_found():
    found = {}
    for path in sorted(SQL.glob("*.sql")):
        text = path.read_text(encoding="utf-8")
        written = {m.lower() for m in re.findall(r"JSON_TABLE\(\s*:(\w+)", text)}
        assert json_document_binds(text) == written, path.stem
        if written:
            found[path.stem] = written
    assert found["context_rows_toolbox_memory"] == {"ids"} and found["kb_chunk_details"] == {"seqs"}
    assert found["context_entity_matching"] == {"terms"} and len(found) >= 18


def test_a_long_id_list_binds_as_clob_and_a_short_one_as_varchar2():
    sql = (SQL / "context_rows_entity_memory.sql").read_text(encoding="utf-8")
    many = json.dumps([f"ent_{i:060d}" for i in range(130)])  # 130 ids of 64 characters: 8.8 KB
    few = json.dumps([f"ent_{i:060d}" for i in range(10)])
    assert len(many.encode()) > VARCHAR2_BIND_BYTES > len(few.encode())
    assert long_document_sizes(sql, {"ids": many}) == {"ids": oracledb.DB_TYPE_CLOB}
    assert long_document_sizes(sql, {"ids": few}) == {}
    # bytes, not characters: 2,100 two-byte characters are 4,200 bytes
    assert long_document_sizes(sql, {"ids": json.dumps(["é" * 2100])}) == {"ids": oracledb.DB_TYPE_CLOB}
    # a long value of a bind JSON_TABLE does not read keeps the driver's default
    assert long_document_sizes("SELECT 1 FROM dual WHERE :name IS NOT NULL", {"name": "x" * 5000}) == {}


def test_the_drivers_cursor_takes_the_sizes_as_clob_variables():
    conn = oracledb.Connection.__new__(oracledb.Connection)
    conn._impl, conn._pool = thin_impl.ThinConnImpl(), None
    try:
        cursor = conn.cursor()
        variables = cursor.setinputsizes(
            **long_document_sizes("SELECT * FROM JSON_TABLE(:ids, '$[*]')", {"ids": "[" + "1," * 3000 + "1]"})
        )
        assert variables["ids"].type is oracledb.DB_TYPE_CLOB
    finally:
        conn._impl = None
