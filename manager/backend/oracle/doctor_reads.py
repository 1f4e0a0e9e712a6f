"""`memgate doctor`'s reads on Oracle: the dictionary rows doctor.py and doctor_query.py judge.

As the owner: USER_OBJECTS, USER_POLICIES, USER_INDEXES, and ALL_CONTEXT once a probe identity is
bound (memgate_ctx_pkg.set_identity, tenant PROBE_TENANT, no row written); the probe is then
handed to the query context under a random handle and taken back, as execute_query does. As the
query account, when its password is set: USER_SYNONYMS, USER_USERS.TEMPORARY_TABLESPACE,
USERENV's CLOUD_SERVICE, and MEMGATE_QCTX's tenant under the handle while it is handed over and
after it is taken back. DB_CREATE_FILE_DEST (V$PARAMETER) is read as the owner, else as the DBA
when [database] admin_user is set; most installs give neither the privilege, and then it is None.
A read that fails is recorded, not raised: the checks say what failed.
"""

from __future__ import annotations

import secrets
from typing import Any

import oracledb

from ...clock import now_iso
from ...errors import MemgateError
from ..settings import DatabaseSettings
from . import doctor
from . import statements as q
from .connect import Accounts
from .doctor_query import PROBE_TENANT, QueryAccount
from .errors import codes, translate

__all__ = ["read"]


def read(accounts: Accounts, settings: DatabaseSettings) -> doctor.Recorded:
    """Every row the doctor judges; the owner's password is required, the query account's is not."""
    owner = accounts.connect("owner")
    query: oracledb.Connection | None = None
    try:
        query = accounts.connect("query")
        query_error = None
    except MemgateError as exc:
        query_error = exc.message
    try:
        with owner.cursor() as cur:
            objects = _dict_rows(cur, q.DOCTOR_OBJECTS.text)
            policies = _dict_rows(cur, q.DOCTOR_POLICIES.text)
            indexes = _dict_rows(cur, q.DOCTOR_TEXT_INDEXES.text)
            omf = _omf_destination(cur, accounts, settings)
            qcur = query.cursor() if query is not None else None
            try:
                contexts, identity_error, handover_error, seen = _probe_contexts(cur, qcur)
                account = _query_account(qcur, seen, omf) if qcur is not None else QueryAccount(error=query_error)
            finally:
                if qcur is not None:
                    qcur.close()
        owner.rollback()
    except oracledb.Error as exc:
        raise translate(exc) from exc
    finally:
        owner.close()
        if query is not None:
            query.close()
    return doctor.Recorded(objects, policies, indexes, contexts, identity_error, handover_error, query=account)


def _dict_rows(cur: oracledb.Cursor, sql: str) -> list[dict[str, Any]]:
    cur.execute(sql)
    names = [d.name.lower() for d in cur.description or ()]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def _one(cur: oracledb.Cursor, sql: str) -> Any:
    cur.execute(sql)
    row = cur.fetchone()
    return row[0] if row else None


def _probe_contexts(
    cur: oracledb.Cursor, qcur: oracledb.Cursor | None
) -> tuple[list[dict[str, Any]], str | None, str | None, tuple[str | None, str | None, str | None]]:
    """Bind a probe identity, read ALL_CONTEXT, hand the identity to the query context and take it
    back (a query session reading it under the handle at each step), then clear it: what every tool
    call and execute_query do. Errors are recorded, not raised. The last item is what the query
    session read while handed over, after it was taken back, and the error of those reads."""
    seen: tuple[str | None, str | None, str | None] = (None, None, None)
    try:
        cur.execute(
            q.SET_IDENTITY.text,
            {
                "tenant": PROBE_TENANT,
                "user_id": None,
                "agent_id": None,
                "thread_id": None,
                "call_id": PROBE_TENANT,
                "now": None,
            },
        )
    except oracledb.Error as exc:
        return [], codes(exc)[1], None, seen
    try:
        contexts = _dict_rows(cur, q.DOCTOR_CONTEXTS.text)
        handle = secrets.token_hex(16)
        try:
            cur.execute(
                q.SHARE_WITH_QUERY_IDENTITY.text,
                {
                    "handle": handle,
                    "tenant": PROBE_TENANT,
                    "user_id": None,
                    "agent_id": None,
                    "thread_id": None,
                    "now": now_iso(),
                },
            )
            during = _query_tenant(qcur, handle)
            cur.execute(q.UNSHARE_WITH_QUERY.text, {"handle": handle})
            after = _query_tenant(qcur, handle)
            seen = (during[0], after[0], during[1] or after[1])
            handover_error = None
        except oracledb.Error as exc:
            handover_error = codes(exc)[1]
        return contexts, None, handover_error, seen
    finally:
        cur.execute(q.CLEAR_IDENTITY.text)


def _query_tenant(qcur: oracledb.Cursor | None, handle: str) -> tuple[str | None, str | None]:
    """MEMGATE_QCTX's TENANT as a query session under `handle` reads it, and the read's error."""
    if qcur is None:
        return None, None
    try:
        qcur.execute(q.SET_IDENTIFIER.text, {"handle": handle})
        try:
            return _one(qcur, q.DOCTOR_QUERY_TENANT.text), None
        finally:
            qcur.execute(q.CLEAR_IDENTIFIER.text)
    except oracledb.Error as exc:
        return None, codes(exc)[1]


def _query_account(
    qcur: oracledb.Cursor, seen: tuple[str | None, str | None, str | None], omf: str | None
) -> QueryAccount:
    try:
        cloud = _one(qcur, q.DOCTOR_CLOUD_SERVICE.text)
    except oracledb.Error:
        cloud = None  # not an attribute this release knows: not Autonomous
    return QueryAccount(
        synonyms=_dict_rows(qcur, q.DOCTOR_QUERY_SYNONYMS.text),
        temporary_tablespace=_one(qcur, q.DOCTOR_QUERY_TEMP.text),
        cloud_service=cloud,
        handed_over=seen[0],
        left_behind=seen[1],
        read_error=seen[2],
        omf_destination=omf,
    )


def _omf_destination(cur: oracledb.Cursor, accounts: Accounts, settings: DatabaseSettings) -> str | None:
    """DB_CREATE_FILE_DEST ("" when not set), as the owner, else as the DBA; None when neither may read it."""
    try:
        return _one(cur, q.DOCTOR_OMF.text) or ""
    except oracledb.Error:
        pass
    if not settings.admin_user:
        return None
    try:
        admin = accounts.connect("admin")
    except MemgateError:
        return None
    try:
        with admin.cursor() as acur:
            return _one(acur, q.DOCTOR_OMF.text) or ""
    except oracledb.Error:
        return None
    finally:
        admin.close()
