"""Keys every server process on one database shares, kept in the operator table server_secret.

The MCP request-state key seals the state a tool hands the client between the two legs
of a 2026-07-28 elicitation round; a second process (another replica, a restart) must
unseal it, so the key lives in the database, not in one process's memory. The first
process to need it creates it; every later one reads the same key.
"""

from __future__ import annotations

import secrets

from ..backend.base import Backend

__all__ = ["REQUEST_STATE_KEY", "shared_key"]

REQUEST_STATE_KEY = "mcp_request_state"


def shared_key(backend: Backend, name: str) -> bytes:
    with backend.operator_session() as s, s.transaction():
        s.execute("operator_server_secret_put", name=name, secret=secrets.token_bytes(32))
        return bytes(s.fetch_one("operator_server_secret_get", name=name)["secret"])
