"""Values between python-oracledb and the manager: binds in, rows out, and execute_query's cells.

The manager speaks SQLite's types: text, numbers, float32 little-endian bytes for vectors.
So a 1-D numpy array binds as a FLOAT32 VECTOR (`array.array('f')`, python-oracledb user
guide, Using VECTOR data), a fetched VECTOR comes back as those bytes, and column names
come back as written (Oracle reports unquoted names upper-cased).

execute_query never reads a LOB: its cursor keeps LOB locators (the default) and a CLOB,
NCLOB, BLOB or BFILE column is shown as its type marker, `<LOB>`; a VECTOR as its
dimension count. Text is cut to the cell width as it arrives.
"""

from __future__ import annotations

import array
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import oracledb

from ..base import BinaryLength

__all__ = [
    "LOB_TYPES",
    "VARCHAR2_BIND_BYTES",
    "bind_value",
    "column_name",
    "cut_bytes",
    "declared_type",
    "json_document_binds",
    "long_document_sizes",
    "query_cell",
    "row_value",
]

LOB_TYPES = {
    oracledb.DB_TYPE_CLOB: "CLOB",
    oracledb.DB_TYPE_NCLOB: "NCLOB",
    oracledb.DB_TYPE_BLOB: "BLOB",
    oracledb.DB_TYPE_BFILE: "BFILE",
}


def bind_value(value: Any) -> Any:
    """A manager value as python-oracledb binds it."""
    if isinstance(value, np.ndarray):
        vector = np.asarray(value, dtype=np.float32)
        if vector.ndim != 1:
            raise ValueError(f"an embedding is a 1-D vector, got shape {vector.shape}")
        return array.array("f", vector.tobytes())
    if isinstance(value, bool):
        return int(value)
    return value


def binds(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: bind_value(v) for k, v in params.items()}


#: the longest str SQL takes as a VARCHAR2 bind (MAX_STRING_SIZE = STANDARD, the default)
VARCHAR2_BIND_BYTES = 4000
#: a bind that is the JSON document JSON_TABLE reads (the id and term lists of the named statements)
_JSON_DOCUMENT = re.compile(r"\bJSON_TABLE\s*\(\s*:([A-Za-z][A-Za-z0-9_$#]*)", re.IGNORECASE)


def json_document_binds(sql: str) -> set[str]:
    """The binds a statement hands to JSON_TABLE as its JSON document, lower-cased."""
    return {name.lower() for name in _JSON_DOCUMENT.findall(sql)}


def long_document_sizes(sql: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """setinputsizes() for the JSON documents longer than a VARCHAR2 bind: bound as CLOB.

    python-oracledb binds a longer str as LONG, which JSON_TABLE does not take (a context window
    naming more than about 60 to 130 rows made its id list that long); a str bound as
    DB_TYPE_CLOB becomes a temporary LOB, which it does. Shorter lists stay VARCHAR2 binds.
    """
    return {
        name: oracledb.DB_TYPE_CLOB
        for name, value in params.items()
        if name.lower() in json_document_binds(sql)
        and isinstance(value, str)
        and len(value.encode("utf-8")) > VARCHAR2_BIND_BYTES
    }


def cut_bytes(text: str, size: int) -> str:
    """At most `size` UTF-8 bytes of `text`, never half a character (session attributes are byte-limited)."""
    return text.encode("utf-8")[:size].decode("utf-8", "ignore")


def column_name(name: str) -> str:
    """An unquoted name (reported upper-case) as written in lower case; a quoted mixed-case one as is."""
    return name.lower() if name == name.upper() else name


def row_value(value: Any) -> Any:
    """A fetched value as the manager reads it: LOBs come as str/bytes (fetch_types.py); a LOB
    locator that still arrives is read here, while the session holds its connection."""
    if isinstance(value, oracledb.LOB):
        return value.read()
    if isinstance(value, array.array):
        return np.asarray(value, dtype="<f4").tobytes()
    return value


def declared_type(description: Any) -> str | None:
    """The declared type execute_query's cells care about (LOB, VECTOR), else None."""
    type_code = description.type_code
    if type_code in LOB_TYPES:
        return LOB_TYPES[type_code]
    if type_code is oracledb.DB_TYPE_VECTOR:
        return "VECTOR"
    return None


def query_cell(value: Any, declared: str | None, keep_chars: int) -> Any:
    """One execute_query value, reduced as it arrives: a LOB never read, a vector by its size."""
    if value is None:
        return None
    if declared in ("CLOB", "NCLOB", "BLOB", "BFILE"):
        return declared  # the locator is dropped unread; the cell renderer shows <LOB>
    if isinstance(value, array.array):
        return BinaryLength(4 * len(value))  # shown as <VECTOR(dim)>, dim = bytes / 4
    if isinstance(value, (bytes, bytearray)):
        return BinaryLength(len(value))
    if isinstance(value, str):
        return value[:keep_chars]
    return value
