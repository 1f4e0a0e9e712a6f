"""access_policy.required_roles over real HTTP: a JWT must carry one of the row's roles to call it.

The real memgate HTTP app under uvicorn on 127.0.0.1, fastmcp.Client, tokens signed with a
locally made key. The row names the roles; the token's `roles` claim is the caller's. A
caller without one of them is denied (one sentence, a `denied` log row, nothing run), and
the refusal is re-checked on every call, not only when the tools are listed.
"""

from __future__ import annotations

import time

import pytest
from fastmcp import Client
from http_helpers import serve_asgi
from jwt_helpers import make_keypair, make_token
from mcp_helpers import log_rows

from memgate.server.app import http_asgi_app, http_server
from memgate.server.cli.common import open_manager
from memgate.server.settings import load_settings
from memgate.toolbox.agent_errors import DENIED

pytestmark = pytest.mark.anyio

ISSUER = "https://idp.example.test"
AUDIENCE = "memgate"
KEYS = make_keypair()
REVIEWERS_ONLY = {
    "tool_name": "reviewer_lookup",
    "tool_handler": "lookup_entity",
    "usage_notes": "Claims, for reviewers.",
    "access_policy": {"required_roles": ["reviewer", "auditor"]},
    "tool_schema": {"type": "object", "properties": {"subject": {"type": "string"}}, "required": ["subject"]},
}
ARGS = {"subject": "model:helios-rag"}


def token(**extra) -> str:
    now = int(time.time())
    claims = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "jane@acme",
        "tenant": "acme",
        "agent": "research-assistant",
        "scope": "memory:read",
        "iat": now,
        "exp": now + 300,
        **extra,
    }
    return make_token(KEYS.private_pem, **claims)


@pytest.fixture
def base_url(sqlite_path, manager, two_tenants):
    manager.seed_tools(two_tenants[0], [REVIEWERS_ONLY])
    settings = load_settings(None, **{"database.path": str(sqlite_path), "server.transport": "http"})
    auth = settings.http.auth.model_copy(
        update={
            "issuer": ISSUER,
            "audience": AUDIENCE,
            "public_key": KEYS.public_pem,
            "required_scopes": ["memory:read"],
        }
    )
    settings = settings.model_copy(update={"http": settings.http.model_copy(update={"auth": auth})})
    served = open_manager(settings)
    with serve_asgi(http_asgi_app(http_server(served, settings), settings)) as url:
        yield url
    served.close()


@pytest.mark.parametrize("roles", [None, [], ["viewer"], "viewer editor"], ids=["no-claim", "empty", "other", "str"])
async def test_a_token_without_a_required_role_is_denied_and_nothing_runs(base_url, backend, roles):
    extra = {} if roles is None else {"roles": roles}
    async with Client(f"{base_url}/mcp", auth=token(**extra)) as c:
        r = await c.call_tool("reviewer_lookup", ARGS, raise_on_error=False)
    assert r.is_error and r.content[0].text == DENIED
    [row] = log_rows(backend)
    assert (row["tool_name"], row["status"], row["error_class"]) == ("reviewer_lookup", "denied", "AccessDenied")


@pytest.mark.parametrize("roles", [["auditor"], "viewer reviewer"], ids=["list", "space-separated"])
async def test_a_token_with_one_of_the_roles_calls_the_tool(base_url, backend, roles):
    async with Client(f"{base_url}/mcp", auth=token(roles=roles)) as c:
        r = await c.call_tool("reviewer_lookup", ARGS)
    assert "<content>0.78" in r.content[0].text
    assert [row["status"] for row in log_rows(backend)] == ["ok"]
