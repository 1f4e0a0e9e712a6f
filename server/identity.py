"""Who is calling, per request: from the verified bearer token (HTTP) or launch configuration (stdio).

Tool arguments never take part. The client's name and version and the session id
are added for the call log; they are what the client says of itself, so they are
recorded, never trusted for access.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import replace

from fastmcp.apps.config import UI_EXTENSION_ID
from fastmcp.server.dependencies import get_access_token, get_context
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from memgate.manager import Identity, NoCaller
from memgate.toolbox import CallContext, CallContextResolver

from .auth import identity_from_access_token
from .auth_settings import HttpAuthSettings

_CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo"
# MCP defines no field for the model behind a host; a host that names one sends it in a request's
# _meta under this key. Recorded in the call log (mcp_call_log.model), never trusted.
_MODEL_META = "model"


def stdio_resolver(identity: Identity) -> CallContextResolver:
    """Every request speaks for the one identity the process was launched with.

    Its session is the server session: one stdio server serves one client connection for
    its whole life, so the session id is made once here, not taken from the request (in
    the 2026-07-28 era the MCP session id is new on every request).
    """
    server_session = f"stdio-{uuid.uuid4().hex}"

    def resolve() -> CallContext:
        return CallContext(
            identity=_with_client(identity, session=server_session),
            transport=_transport() or "stdio",
            renders_apps=_renders_apps(),
        )

    return resolve


def http_resolver(auth: HttpAuthSettings, *, stateless: bool = False) -> CallContextResolver:
    """Every request speaks for the tenant, user, agent and thread in its verified bearer token.

    A caller with no thread claim is in the window (and the conversation, and the session memory
    store) of its session key. A handshake-era (2025-11-25) client on a server that keeps sessions
    has a lasting MCP session: its mcp-session-id is the key. In the 2026-07-28 era a request has
    no lasting session (its MCP session id is new every time), and on a `server.stateless` server
    neither has a legacy client's, so the key is made from the client (`caller_session`): the same
    for the same tenant, user, agent, OAuth client and client name in any process, found in the
    database whichever server process takes the next request.
    """

    def resolve() -> CallContext:
        token = get_access_token()
        if token is None:
            # Only outside a request (start-up); on /mcp the auth middleware rejects first.
            raise NoCaller("no verified access token on this request")
        identity = _with_client(identity_from_access_token(token, auth))
        if stateless or _modern_era():
            identity = replace(identity, session=caller_session(identity, getattr(token, "client_id", None)))
        return CallContext(identity=identity, transport=_transport() or "streamable-http", renders_apps=_renders_apps())

    return resolve


def caller_session(identity: Identity, client_id: str | None = None) -> str:
    """A stateless caller's lasting session key: the same for the same tenant, user, agent, OAuth
    client (the token's client_id: azp, else sub) and client name (its clientInfo), in any process.

    So ChatGPT and an IDE agent of one user are two windows and two conversations, where a key of
    tenant, user and agent alone made every client of the user share one window (and spend its tool
    rounds). Two conversations of one user in one client still share the key: a `thread` claim keeps
    them apart (a thread keys the window before this). Hashed, so the key has one length whatever
    the ids; the tenant is part of it though the wall already keeps tenants apart.
    """
    parts = "\x00".join(
        (identity.tenant, identity.user or "", identity.agent or "", client_id or "", identity.client_name or "")
    )
    return "caller-" + hashlib.sha256(parts.encode()).hexdigest()[:32]


def _modern_era() -> bool:
    try:
        session = get_context().session
    except RuntimeError:
        return False
    return getattr(session, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS


def _renders_apps() -> bool:
    """Whether this request's client declared the MCP Apps extension (what the client says of itself:
    it decides only whether a view's own tool is offered, never access; the row's scopes still do)."""
    try:
        return get_context().client_supports_extension(UI_EXTENSION_ID)
    except RuntimeError:
        return False


def _transport() -> str | None:
    try:
        return get_context().transport
    except RuntimeError:
        return None


def _with_client(identity: Identity, *, session: str | None = None) -> Identity:
    """The identity with what the client says of itself, and the session (`session`, else the request's)."""
    try:
        ctx = get_context()
    except RuntimeError:
        return replace(identity, session=session) if session else identity
    name = version = None
    params = getattr(ctx.session, "client_params", None) if ctx.session is not None else None
    info = getattr(params, "client_info", None)
    meta = getattr(ctx.request_context, "meta", None) if ctx.request_context else None
    model = _meta_get(meta, _MODEL_META)
    if info is None:
        raw = _meta_get(meta, _CLIENT_INFO_META)
        if isinstance(raw, dict):
            name, version = raw.get("name"), raw.get("version")
    else:
        name, version = info.name, info.version
    if session is None:
        try:
            session = ctx.session_id
        except Exception:
            session = None
    return replace(
        identity,
        client_name=_short(name),
        client_version=_short(version),
        session=_short(session),
        model=_short(model) if isinstance(model, str) else None,
    )


def _meta_get(meta: object, key: str) -> object:
    if meta is None:
        return None
    if isinstance(meta, dict):
        return meta.get(key)
    extra = getattr(meta, "model_extra", None) or {}
    return extra.get(key, getattr(meta, key, None))


def _short(value: object) -> str | None:
    return str(value)[:200] if value else None
