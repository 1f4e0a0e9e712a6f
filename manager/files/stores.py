"""Which memory store a `memory` call works on: chosen by the toolbox row, keyed by the verified identity.

A store is one virtual filesystem under /memories. The toolbox row's access_policy
picks the scope (`{"memory_store": {"scope": "shared", "name": "team-notes"}}`); the
identity the transport verified fills in whose store it is. Tool arguments never take
part, so a model cannot name another agent's or user's store. Every store row, and
every file in it, also carries tenant_id behind the tenant wall, so two tenants with an
agent of the same name have two unrelated stores.

Inside a tenant the scope wall holds too: a store row is stamped with the scope it
belongs to (below), and the database shows it, and its files, only to callers in that
scope. Store resolution and the wall agree by construction: the columns stamped are
exactly the identity values that picked the key, so the caller that resolves a key is
always one the wall lets see it.

Store keys (unique per tenant), and the scope each row is stamped with:
  agent    agent:<identity.agent>     agent_id; the default scope. No agent in the identity ->
                                      agent:default, stamped with no agent (shared by every
                                      caller that names none)
  user     user:<identity.user>       user_id; no user -> the call fails as a server error
  session  session:<t>/<user>/<agent> t = identity.thread, else identity.session (the window
                                      session key); user and agent are the identity's ("-" for
                                      none, which no id can be). Stamped with user_id, agent_id
                                      and, for a thread, thread_id: the conversation's own scope,
                                      so two users (or agents) on one thread name share nothing.
                                      Neither thread nor session -> fails
  shared   shared:<name>              no stamp; one named store that several agents share
  global   global                     no stamp; one store for the whole tenant
  context  context:<name>:<key>:<v>   no stamp; v = the trusted request-context value `key`
                                      (e.g. a JWT claim), at most 200 characters of
                                      A-Za-z0-9_.- ; else fails
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError, InvalidArgument
from ..identity import Identity

SCOPES = ("agent", "user", "session", "shared", "global", "context")
DEFAULT_SCOPE = "agent"
#: The agent store of an identity that names no agent (e.g. a stdio server launched with a
#: tenant and user only). Documented, so an operator can find it: `--store agent:default`.
DEFAULT_AGENT = "default"
POLICY_KEY = "memory_store"

#: store names, and the request-context values a context store is keyed on
_VALUE = re.compile(r"[A-Za-z0-9_.-]{1,200}")
#: context keys name a claim; claim names may be URLs ("https://example.com/project")
_CONTEXT_KEY = re.compile(r"[A-Za-z0-9_.:/-]{1,200}")
_POLICY_FIELDS = {"scope", "name", "context_key"}


@dataclass(frozen=True)
class StoreRef:
    """A resolved store: its key, and the scope columns recorded on its row."""

    key: str
    scope: str
    user_id: str | None = None
    agent_id: str | None = None
    thread_id: str | None = None


def validate_store_policy(value: Any) -> None:
    """Refuse a malformed access_policy.memory_store (the row is then not served)."""
    field = f"access_policy.{POLICY_KEY}"
    if not isinstance(value, dict):
        raise InvalidArgument(f'{field} must be an object like {{"scope": "agent"}}', field=field)
    unknown = set(value) - _POLICY_FIELDS
    if unknown:
        raise InvalidArgument(
            f"{field} has unknown keys {sorted(unknown)}; allowed: {sorted(_POLICY_FIELDS)}", field=field
        )
    scope = value.get("scope", DEFAULT_SCOPE)
    if scope not in SCOPES:
        raise InvalidArgument(f"{field}.scope must be one of {list(SCOPES)}, got {scope!r}", field=f"{field}.scope")
    name, key = value.get("name"), value.get("context_key")
    if scope in ("shared", "context"):
        if not isinstance(name, str) or not _VALUE.fullmatch(name):
            raise InvalidArgument(
                f"{field}.name is required for scope {scope!r}: 1-200 characters of A-Za-z0-9_.-", field=f"{field}.name"
            )
    elif name is not None:
        raise InvalidArgument(f"{field}.name applies only to the shared and context scopes", field=f"{field}.name")
    if scope == "context":
        if not isinstance(key, str) or not _CONTEXT_KEY.fullmatch(key):
            raise InvalidArgument(
                f"{field}.context_key is required for scope 'context': the request-context "
                "key (e.g. a JWT claim name) whose value picks the store",
                field=f"{field}.context_key",
            )
    elif key is not None:
        raise InvalidArgument(f"{field}.context_key applies only to the context scope", field=f"{field}.context_key")


def resolve_store(identity: Identity, policy: dict[str, Any] | None) -> StoreRef:
    """The store this identity's call works on; ConfigError when the identity cannot key it.

    The error fails the call as a server error, before any store is read: telling the
    model "nothing is recorded" for a store we could not even name would be a lie.
    """
    spec = (policy or {}).get(POLICY_KEY) or {}
    try:
        validate_store_policy(spec)
    except InvalidArgument as exc:
        raise ConfigError(exc.message, field=exc.field) from None
    scope = spec.get("scope", DEFAULT_SCOPE)
    if scope == "agent":
        return _agent_store(identity.agent or DEFAULT_AGENT)
    if scope == "user":
        if not identity.user:
            raise _unresolved("the user scope needs a user in the verified identity", "user")
        return StoreRef(f"user:{identity.user}", scope, user_id=identity.user)
    if scope == "session":
        # identity.thread first. identity.session is the caller's window session key: the stdio
        # server process, the legacy era's mcp-session-id, else one made from the caller's client
        # (server/identity.py). The user and agent are in the key and stamped, as a conversation is
        # keyed: a thread name shared by two users (or agents) is two stores.
        thread = identity.thread or identity.session
        if not thread:
            raise _unresolved("the session scope needs a thread or an MCP session id", "thread")
        return StoreRef(
            session_key(thread, identity.user, identity.agent),
            scope,
            user_id=identity.user,
            agent_id=identity.agent,
            thread_id=identity.thread,
        )
    if scope == "shared":
        return StoreRef(f"shared:{spec['name']}", scope)
    if scope == "global":
        return StoreRef("global", scope)
    key = spec["context_key"]
    value = identity.context_value(key)
    if value is None:
        raise _unresolved(f"the request context has no value for {key!r}", "context")
    if not _VALUE.fullmatch(value):
        # Never echo the value: it is caller-supplied data in a trusted slot.
        raise _unresolved(f"the request-context value of {key!r} is not 1-200 characters of A-Za-z0-9_.-", "context")
    return StoreRef(f"context:{spec['name']}:{key}:{value}", scope)


#: what a session store key says for an identity with no user or no agent (no id can be "-")
_NOBODY = "-"


def session_key(thread: str, user: str | None, agent: str | None) -> str:
    """The key of the session store of `thread` (or a window session key) for this user and agent."""
    return f"session:{thread}/{user or _NOBODY}/{agent or _NOBODY}"


def store_from_key(key: str) -> StoreRef:
    """Parse a store key as the CLI takes it (`agent:research-assistant`, `global`, ...).

    `session:T/USER/AGENT` is taken as thread T's store of that user and agent (the CLI cannot tell
    a thread from a window session key); a `session:X` key written before stores were keyed by user
    and agent is thread X's shared one.
    """
    scope, _, rest = key.partition(":")
    bad = InvalidArgument(
        f"{key!r} is not a memory store key.",
        field="store",
        hint="Use agent:NAME, user:NAME, session:THREAD/USER/AGENT, shared:NAME, global, or context:NAME:KEY:VALUE.",
    )
    if scope == "global":
        if rest:
            raise bad
        return StoreRef("global", scope)
    if scope not in SCOPES or not rest or any(ch.isspace() for ch in rest):
        raise bad
    if scope == "agent":
        return _agent_store(rest)
    if scope == "user":
        return StoreRef(key, scope, user_id=rest)
    if scope == "session":
        thread, _, owner = rest.partition("/")
        if not owner:
            return StoreRef(key, scope, thread_id=rest)
        user, _, agent = owner.partition("/")
        if not thread or not user or not agent or "/" in agent:
            raise bad
        return StoreRef(
            key,
            scope,
            user_id=None if user == _NOBODY else user,
            agent_id=None if agent == _NOBODY else agent,
            thread_id=thread,
        )
    if scope == "shared":
        if not _VALUE.fullmatch(rest):
            raise bad
        return StoreRef(key, scope)
    name, _, tail = rest.partition(":")
    ctx_key, _, value = tail.rpartition(":")
    if not (_VALUE.fullmatch(name) and _CONTEXT_KEY.fullmatch(ctx_key or "") and _VALUE.fullmatch(value)):
        raise bad
    return StoreRef(key, scope)


def _agent_store(agent: str) -> StoreRef:
    # agent:default is the store of callers that name no agent, so its row names none either.
    return StoreRef(f"agent:{agent}", "agent", agent_id=None if agent == DEFAULT_AGENT else agent)


def _unresolved(why: str, field: str) -> ConfigError:
    return ConfigError(
        f"cannot resolve the memory store: {why}",
        field=field,
        hint="Fix the toolbox row's access_policy.memory_store or the identity's claims.",
    )
