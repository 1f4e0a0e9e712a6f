"""Connections to memgate's Oracle accounts, from [database] settings and the environment.

Thin mode by default; Thick mode when `thick_mode` is set (init_oracle_client once per
process, before any connection). An Autonomous Database wallet is `config_dir` (tnsnames.ora)
plus, in Thin mode, `wallet_location` (ewallet.pem) and MEMGATE_ORACLE_WALLET_PASSWORD,
the password chosen when the wallet was downloaded ("It is not the database user or ADMIN
password", python-oracledb user guide, mTLS connections to Autonomous Database).

A pool's session_callback runs only for a session the pool has not handed out before
(python-oracledb user guide, Session Callbacks), so it sets only what is constant for the
session (schema, byte-order comparison); a call's identity is bound on every acquire and
cleared before every release, by the backend. Every connection handed out for the app, the
owner or a DBA fetches LOB and JSON columns as text (fetch_types.prepare_connection).
"""

from __future__ import annotations

import os
import threading
from typing import Any

import oracledb

from ...errors import ConfigError
from ..settings import ORACLE_ACCOUNTS, ORACLE_PASSWORD_ENV, ORACLE_WALLET_PASSWORD_ENV, DatabaseSettings
from . import statements as q
from .errors import connect_error
from .fetch_types import prepare_connection

__all__ = ["Accounts", "init_driver"]

_thick_lock = threading.Lock()
_thick_done = False


def init_driver(settings: DatabaseSettings) -> str:
    """Thick mode when asked for (once per process); returns "thick" or "thin"."""
    global _thick_done
    if not settings.thick_mode:
        return "thin"
    with _thick_lock:
        if not _thick_done:
            kwargs: dict[str, Any] = {}
            if settings.client_lib_dir:
                kwargs["lib_dir"] = str(settings.client_lib_dir)
            if settings.config_dir:
                kwargs["config_dir"] = str(settings.config_dir)
            try:
                oracledb.init_oracle_client(**kwargs)
            except oracledb.Error as exc:
                raise ConfigError(
                    "cannot load the Oracle Client libraries for Thick mode",
                    field="database.client_lib_dir",
                    hint="Set database.client_lib_dir to the Instant Client folder, "
                    "or thick_mode = false for Thin mode.",
                ) from exc
            _thick_done = True
    return "thick"


def password(account: str) -> str:
    """The account's password, from the environment only."""
    env = ORACLE_PASSWORD_ENV[account]
    value = os.environ.get(env)
    if not value:
        raise ConfigError(
            f"{env} is not set: memgate reads the {ORACLE_ACCOUNTS.get(account, account)} "
            f"password from the environment only",
            field=env,
            hint=f"export {env}=... before running memgate.",
        )
    return value


class Accounts:
    """Pools for the app and query accounts, and one-off connections for the owner and a DBA."""

    def __init__(self, settings: DatabaseSettings):
        self.settings = settings
        self.mode = init_driver(settings)
        self._lock = threading.Lock()
        self._pools: dict[str, oracledb.ConnectionPool] = {}

    # -- parameters ------------------------------------------------------------------
    def _params(self, account: str) -> dict[str, Any]:
        s = self.settings
        user = s.admin_user if account == "admin" else ORACLE_ACCOUNTS[account]
        if account == "admin" and not user:
            raise ConfigError("database.admin_user is not set", field="database.admin_user")
        params: dict[str, Any] = {
            "user": user,
            "password": password(account),
            "dsn": s.dsn,
            "tcp_connect_timeout": s.connect_timeout_s,
            "retry_count": 0,
        }
        if s.config_dir:
            params["config_dir"] = str(s.config_dir)
        if s.wallet_location:
            params["wallet_location"] = str(s.wallet_location)
        wallet_password = os.environ.get(ORACLE_WALLET_PASSWORD_ENV)
        if wallet_password:
            params["wallet_password"] = wallet_password
        return params

    # -- pools -------------------------------------------------------------------------
    def pool(self, account: str) -> oracledb.ConnectionPool:
        """The app, query or owner pool, created on first use.

        The owner's pool is small: the operator commands and the HTTP server's reads before a
        tenant is known (tenant mapping, scope metadata) use it.
        """
        with self._lock:
            if account not in self._pools:
                s = self.settings
                size = {
                    "app": {"min": s.pool_min, "max": s.pool_max, "increment": s.pool_increment},
                    "query": {"min": 0, "max": s.query_pool_max, "increment": 1},
                    "owner": {"min": 0, "max": 2, "increment": 1},
                }[account]
                callback = _app_session_setup if account == "app" else _own_schema_setup
                self._pools[account] = oracledb.create_pool(
                    **self._params(account),
                    **size,
                    getmode=oracledb.POOL_GETMODE_TIMEDWAIT,
                    wait_timeout=int(s.connect_timeout_s * 1000),
                    session_callback=callback,
                )
            return self._pools[account]

    def acquire(self, account: str) -> oracledb.Connection:
        """A pooled connection; the app's and the owner's fetch LOB and JSON columns as text (fetch_types.py)."""
        try:
            return prepare_connection(self.pool(account).acquire(), account)
        except oracledb.Error as exc:
            raise connect_error(exc, self.settings.dsn, ORACLE_ACCOUNTS[account]) from exc

    def release(self, account: str, conn: oracledb.Connection, *, broken: bool = False) -> None:
        pool = self._pools.get(account)
        if pool is None:
            return
        try:
            if broken:
                pool.drop(conn)
            else:
                pool.release(conn)
        except oracledb.Error:
            pass  # the pool discards a connection it cannot take back

    def connect(self, account: str) -> oracledb.Connection:
        """A standalone connection (the owner for install and operator commands, or a DBA)."""
        try:
            conn = oracledb.connect(**self._params(account))
        except oracledb.Error as exc:
            raise connect_error(exc, self.settings.dsn, ORACLE_ACCOUNTS.get(account, self.settings.admin_user)) from exc
        prepare_connection(conn, account)
        _session_setup(conn, own_schema=True)
        return conn

    def close(self) -> None:
        with self._lock:
            pools, self._pools = self._pools, {}
        for pool in pools.values():
            try:
                pool.close(force=True)
            except oracledb.Error:
                pass


def _session_setup(conn: oracledb.Connection, *, own_schema: bool) -> None:
    with conn.cursor() as cur:
        if not own_schema:
            cur.execute(q.APP_SCHEMA.text)
        cur.execute(q.BINARY_COMPARE.text)
        cur.execute(q.BINARY_SORT.text)


def _app_session_setup(conn: oracledb.Connection, _requested_tag: str | None) -> None:
    _session_setup(conn, own_schema=False)


def _own_schema_setup(conn: oracledb.Connection, _requested_tag: str | None) -> None:
    # The query account keeps its own schema (its synonyms name the reviewed views), the owner its tables.
    _session_setup(conn, own_schema=True)
