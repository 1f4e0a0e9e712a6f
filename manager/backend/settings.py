"""memgate.toml [database]: which backend, and where it lives.

SQLite needs only `path`. Oracle needs `dsn`; memgate's three accounts have fixed names
(ORACLE_ACCOUNTS: the install scripts and VPD policies name them) and their passwords come
from the environment only (ORACLE_PASSWORD_ENV), never from a file, so a memgate.toml can
be shared without leaking a credential.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

APP_NAME = "memgate"

#: memgate's accounts: owner (schema, `memgate init`, operator commands), app (every tool
#: call, walled by VPD), query (execute_query: READ on the reviewed views only)
ORACLE_ACCOUNTS = {"owner": "MEMGATE_OWNER", "app": "MEMGATE_APP", "query": "MEMGATE_QUERY"}
#: account -> the environment variable holding its password
ORACLE_PASSWORD_ENV = {
    "owner": "MEMGATE_ORACLE_OWNER_PASSWORD",
    "app": "MEMGATE_ORACLE_APP_PASSWORD",
    "query": "MEMGATE_ORACLE_QUERY_PASSWORD",
    "admin": "MEMGATE_ORACLE_ADMIN_PASSWORD",
}
#: the Autonomous Database wallet's password (Thin mode reads ewallet.pem with it)
ORACLE_WALLET_PASSWORD_ENV = "MEMGATE_ORACLE_WALLET_PASSWORD"
# An unquoted Oracle identifier: the ONNX model name is spliced into SQL, so nothing else passes.
_ORACLE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_$#]{0,127}")


def default_database_path() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME)) / "memgate.db"


class DatabaseSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: Literal["sqlite", "oracle"] = "sqlite"
    # -- SQLite ---------------------------------------------------------------
    path: Path = Field(default_factory=default_database_path)
    busy_timeout_ms: int = Field(5000, ge=0, le=600_000)
    # -- Oracle ---------------------------------------------------------------
    #: an Easy Connect string (host:port/service) or a tnsnames.ora alias (with config_dir)
    dsn: str | None = None
    #: a DBA account; when set (password in MEMGATE_ORACLE_ADMIN_PASSWORD) `memgate init`
    #: also creates the three accounts and the query synonyms
    admin_user: str | None = None
    #: where `memgate init` (as admin_user) puts the owner's tables: USERS on Oracle Free, DATA on Autonomous
    tablespace: str = "USERS"
    #: the tempfile of execute_query's own temporary tablespace (010_accounts.sql, run by `memgate init`
    #: as admin_user): "auto" (Oracle-managed files, else next to the TEMP tablespace's file), or a path
    query_temp_file: str = "auto"
    #: python-oracledb Thick mode (Oracle Client libraries) instead of the default Thin mode
    thick_mode: bool = False
    #: Thick mode: where the Oracle Client libraries are, if not on the library path
    client_lib_dir: Path | None = None
    #: the folder with tnsnames.ora (an Autonomous Database wallet, unzipped)
    config_dir: Path | None = None
    #: the folder with ewallet.pem (Thin mode mTLS); usually the same as config_dir
    wallet_location: Path | None = None
    pool_min: int = Field(1, ge=0, le=1000)
    pool_max: int = Field(8, ge=1, le=1000)
    pool_increment: int = Field(1, ge=1, le=100)
    #: execute_query's own pool, on the read-only account
    query_pool_max: int = Field(4, ge=1, le=1000)
    #: seconds to wait for a TCP connection before saying the database is unreachable
    connect_timeout_s: float = Field(10.0, gt=0, le=600)
    #: an ONNX embedding model loaded in the database (DBMS_VECTOR.LOAD_ONNX_MODEL): when
    #: set, embeddings come from VECTOR_EMBEDDING(<model> ...) instead of the local embedder
    onnx_model: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _no_passwords(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in data:
                if "password" in str(key).lower():
                    raise ValueError(
                        f"{key} cannot be set in a file: database passwords come from the environment only "
                        f"({', '.join(sorted({*ORACLE_PASSWORD_ENV.values(), ORACLE_WALLET_PASSWORD_ENV}))})"
                    )
        return data

    @field_validator("path", "client_lib_dir", "config_dir", "wallet_location")
    @classmethod
    def _expand(cls, v: Path | None) -> Path | None:
        return v.expanduser() if v is not None else None

    @field_validator("onnx_model", "tablespace")
    @classmethod
    def _model_name(cls, v: str | None) -> str | None:
        if v is not None and not _ORACLE_NAME.fullmatch(v):
            raise ValueError(f"{v!r} is not an Oracle name (a letter, then letters, digits, _ $ #)")
        return v

    @field_validator("query_temp_file")
    @classmethod
    def _file_name(cls, v: str) -> str:
        # spliced into a q'[...]' literal of 010_accounts.sql: no quote, bracket, & or line break
        if not v or any(c in v for c in "'\"[]&\r\n"):
            raise ValueError(f"{v!r} is not a file name: use auto, or a path without quotes, brackets or &")
        return v

    @model_validator(mode="after")
    def _oracle_needs_a_dsn(self) -> DatabaseSettings:
        if self.backend == "oracle" and not self.dsn:
            raise ValueError(
                'backend = "oracle" needs database.dsn (MEMGATE_DATABASE__DSN), e.g. "localhost:1521/FREEPDB1"'
            )
        if self.pool_min > self.pool_max:
            raise ValueError(f"pool_min ({self.pool_min}) is larger than pool_max ({self.pool_max})")
        return self

    @property
    def file(self) -> Path | None:
        """The database file, for a backend that keeps its data in one (SQLite); else None."""
        return self.path if self.backend == "sqlite" else None

    @property
    def location(self) -> str:
        """Where the data lives, for messages: the SQLite path or the Oracle DSN."""
        return str(self.path) if self.backend == "sqlite" else f"Oracle {self.dsn}"
