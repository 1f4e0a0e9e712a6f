"""The session slots' ledger on its own (a clock the test turns): a session is idle only between
requests, and a caller's lasting session key is per client."""

from __future__ import annotations

from fastmcp.server.auth import AccessToken
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser

from memgate.manager import Identity
from memgate.server.auth_settings import HttpAuthSettings
from memgate.server.identity import caller_session, http_resolver
from memgate.server.session_slots import OpenSessions

JANE = ("https://idp.example", "jane", "client-a")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_with_a_request_in_flight_never_expires():
    clock = Clock()
    sessions = OpenSessions(60.0, clock)
    sessions.opened("s1", JANE)
    sessions.finish("s1")  # the opening request answered: idle from now
    assert sessions.begin("s1", JANE)  # a long call starts (a stream, a slow tool)
    clock.now += 3600
    assert sessions.held(JANE) == 1 and sessions.knows("s1")  # busy for an hour: still open
    sessions.finish("s1")
    clock.now += 59
    assert sessions.held(JANE) == 1  # idle 59 s of 60
    clock.now += 1
    assert sessions.held(JANE) == 0 and not sessions.knows("s1")


def test_a_request_for_another_principals_session_is_not_counted():
    sessions = OpenSessions(60.0, Clock())
    sessions.opened("s1", JANE)
    assert not sessions.begin("s1", ("https://idp.example", "bob", "client-a"))
    assert not sessions.begin("nope", JANE)


def test_each_client_of_a_user_has_its_own_lasting_session_key():
    jane = Identity(tenant="acme", user="jane", agent="helper")
    assert caller_session(jane, "chatgpt") == caller_session(jane, "chatgpt")
    assert caller_session(jane, "chatgpt") != caller_session(jane, "ide-agent")
    named = Identity(tenant="acme", user="jane", agent="helper", client_name="Claude Desktop")
    assert caller_session(named, "chatgpt") != caller_session(jane, "chatgpt")


def test_a_stateless_server_keys_a_legacy_callers_window_by_its_client_in_any_process():
    """Outside the 2026-07-28 era a request's MCP session id is new each time; on a stateless server the
    resolver keys the caller by tenant, user, agent and client instead (a server that keeps sessions
    leaves the key to the MCP session)."""
    settings = HttpAuthSettings()
    token = AccessToken(
        token="opaque", client_id="chatgpt", scopes=[], claims={settings.tenant_claim: "acme", "sub": "jane"}
    )
    reset = auth_context_var.set(AuthenticatedUser(token))
    try:
        stateless = http_resolver(settings, stateless=True)().identity
        kept = http_resolver(settings)().identity
    finally:
        auth_context_var.reset(reset)
    assert stateless.session == caller_session(Identity(tenant="acme", user="jane"), "chatgpt")
    assert kept.session is None
