"""How the app and owner connections fetch LOB and JSON columns: as the text the manager stored.

python-oracledb 2.0 and later fetch a column that carries an enabled `IS JSON` check
constraint (FetchInfo.is_json) as a Python object, decoded with json.loads, and that choice
comes before fetch_lobs=False (the driver's BaseCursorImpl._create_fetch_var; the maintainers
call it "the python-oracledb 2.0 change in default handling of columns with IS JSON
constraints", github.com/oracle/python-oracledb/issues/271). The manager reads these columns as text
(json.loads of tool_schema, content_json, ...) and hashes a context manifest over its exact
stored text, so a decoded object, or one serialised again, is wrong. An output type handler
that returns a variable replaces that default ("If a type handler exists and returns a
variable (that is, cursor.var(...)), then that return variable is used", python-oracledb API
reference, Defaults). So a CLOB (IS JSON or not) is fetched as DB_TYPE_LONG, a str;
an NCLOB as DB_TYPE_LONG_NVARCHAR; a BLOB as DB_TYPE_LONG_RAW, bytes ("Fetching LOBs as
Strings and Bytes"); a VARCHAR2 with IS JSON as the VARCHAR2 it is. A JSON-type value
(OSON, binary: there is no stored text to return) is serialised once, compactly; memgate's
schema declares no JSON-type column (tests/backend/oracle/test_oracle_fetch_types.py checks).

The handler is set on the connection (Connection.outputtypehandler), so it covers every
cursor of it, also the implicit-result cursors a PL/SQL block returns (Cursor.getimplicitresults):
fetch_lobs=False on execute applies to that one cursor, and an implicit result would otherwise
hold LOB locators, which cannot be read once the session has released its connection.
execute_query's account (query) gets no handler: it never reads a LOB (values.py).
"""

from __future__ import annotations

import json
from typing import Any

import oracledb

__all__ = ["TEXT_ACCOUNTS", "fetch_as_text", "prepare_connection"]

#: the accounts whose connections fetch LOB and JSON columns as text or bytes
TEXT_ACCOUNTS = frozenset({"app", "owner", "admin"})

_LONG_TYPES = {
    oracledb.DB_TYPE_CLOB: oracledb.DB_TYPE_LONG,
    oracledb.DB_TYPE_NCLOB: oracledb.DB_TYPE_LONG_NVARCHAR,
    oracledb.DB_TYPE_BLOB: oracledb.DB_TYPE_LONG_RAW,
}
_TEXT_TYPES = (oracledb.DB_TYPE_VARCHAR, oracledb.DB_TYPE_NVARCHAR, oracledb.DB_TYPE_CHAR, oracledb.DB_TYPE_NCHAR)


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def fetch_as_text(cursor: oracledb.Cursor, metadata: oracledb.FetchInfo) -> oracledb.Var | None:
    """The output type handler (the two-argument form: cursor, FetchInfo); None keeps the default."""
    type_code = metadata.type_code
    if type_code in _LONG_TYPES:
        return cursor.var(_LONG_TYPES[type_code], arraysize=cursor.arraysize)
    if type_code is oracledb.DB_TYPE_JSON:
        return cursor.var(oracledb.DB_TYPE_JSON, arraysize=cursor.arraysize, outconverter=_json_text)
    if metadata.is_json and type_code in _TEXT_TYPES:
        return cursor.var(type_code, size=metadata.internal_size or 32767, arraysize=cursor.arraysize)
    return None


def prepare_connection(conn: oracledb.Connection, account: str) -> oracledb.Connection:
    """`conn` with the text handler when `account` reads memgate's rows (app, owner, a DBA)."""
    # None is the driver's default: execute_query's account keeps LOB locators unread (values.py)
    conn.outputtypehandler = fetch_as_text if account in TEXT_ACCOUNTS else None  # type: ignore[assignment]
    return conn
