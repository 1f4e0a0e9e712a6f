"""Which tenant a verified HTTP token speaks for, decided before the MCP app sees the request.

The tenant is the token's tenant claim, or what the operator's tenant mapping
(`memgate tenants map`) says for tokens that carry none: Google access tokens, IdPs that
cannot add custom claims. The mapping is consulted for every token, so a claim that a
mapping contradicts is refused too, and so is a tenant `memgate init` never set up (a typo
in a claim or a mapping would otherwise be served no tools, silently). It is read on the
operator path, since no tenant is known yet. A refusal is a 403 with one sentence and one
`denied` mcp_call_log row under the marker tenant ":unmapped", whose arguments are the
verified attributes an operator would map and the tenant claimed (`memgate log -t :unmapped --json`).
"""

from __future__ import annotations

import logging
import uuid

import anyio
from starlette.requests import HTTPConnection

from memgate.manager import (
    UNMAPPED_TENANT,
    AccessDenied,
    BackendUnavailable,
    CallRecord,
    Identity,
    InvalidArgument,
    MemoryManager,
    ServerGate,
    TenantChoice,
    TenantMismatch,
    TenantUnmapped,
    TokenAttributes,
    check_id,
    now_iso,
)

from .auth_responses import TenantRefused
from .auth_settings import HttpAuthSettings
from .outage import VerifierUnavailable
from .verifiers import VerifiedToken

log = logging.getLogger("memgate.server.auth")

UNMAPPED_SENTENCE = "This account is not mapped to a memgate tenant; ask the memgate operator to map it."
MISMATCH_SENTENCE = "This token's tenant and the operator's tenant mapping disagree, so the request is refused."
INVALID_ID_SENTENCE = (
    "This token's tenant, user, agent or thread claim is not a valid memgate id, so the request is "
    "refused; ask the memgate operator to check which claims carry them."
)
NOT_SET_UP_SENTENCE = "This token's tenant is not set up on this memgate server; ask the memgate operator to set it up."
_MAX_LOGGED = 200


class TenantNotSetUp(AccessDenied):
    """A verified token's tenant (its claim, or the operator's mapping) that `memgate init` never set up."""


class TenantGate:
    def __init__(self, manager: MemoryManager, settings: HttpAuthSettings, lookups: ServerGate):
        self.manager = manager  # only to log a refused call (walled, under the :unmapped tenant)
        self.settings = settings
        self.lookups = lookups

    async def admit(self, token: VerifiedToken, conn: HTTPConnection) -> VerifiedToken:
        """The token with its tenant (and mapped user) decided, or TenantRefused after logging why."""
        claimed = token.claims.get(self.settings.tenant_claim)
        claimed = claimed if isinstance(claimed, str) and claimed else None
        attributes = TokenAttributes(**token.attributes)
        try:
            self._check_ids(token, claimed)
            choice = await anyio.to_thread.run_sync(self._choose, attributes, claimed)
        except (TenantUnmapped, TenantMismatch, InvalidArgument, TenantNotSetUp) as exc:
            await anyio.to_thread.run_sync(self._log_refusal, token, conn, exc)
            raise TenantRefused(*_refusal(exc)) from exc
        except BackendUnavailable as exc:
            raise VerifierUnavailable("the tenant mapping cannot be read") from exc
        return token.model_copy(update={"tenant": choice.tenant, "mapped_user": choice.user})

    def _choose(self, attributes: TokenAttributes, claimed: str | None) -> TenantChoice:
        """The tenant (and mapped user) the token speaks for, set up by `memgate init`: one thread hop."""
        choice = self.lookups.tenant_for(attributes, claimed)
        if choice.user is not None:
            check_id(choice.user, "user")
        if not self.lookups.tenant_set_up(choice.tenant):
            raise TenantNotSetUp(f"tenant {choice.tenant} is not set up")
        return choice

    def _check_ids(self, token: VerifiedToken, claimed: str | None) -> None:
        """The ids a token names follow memgate's id rule (manager/identity.py), or InvalidArgument.

        Checked here, with the other reasons to refuse a verified token, so a bad claim is
        a 403 with one sentence and a logged denial rather than a failure inside a call.
        """
        if claimed is not None:
            check_id(claimed, "tenant")
        for kind, claim in (
            ("user", self.settings.user_claim),
            ("agent", self.settings.agent_claim),
            ("thread", self.settings.thread_claim),
        ):
            value = token.claims.get(claim)
            if isinstance(value, str) and value:
                check_id(value, kind)

    def _log_refusal(self, token: VerifiedToken, conn: HTTPConnection, exc: AccessDenied | InvalidArgument) -> None:
        call_id = str(uuid.uuid4())
        log.warning(
            "call %s refused for %s token of %s: %s",
            call_id,
            token.verifier,
            token.attributes.get("sub", "?"),
            exc.message,
        )
        sentence = _refusal(exc)[1]
        identity = Identity(
            tenant=UNMAPPED_TENANT, principal=_short(token.claims.get("sub")), scopes=frozenset(token.scopes)
        )
        record = CallRecord(
            call_id=call_id,
            called_at=now_iso(),
            tool_name=_requested(conn),
            status="denied",
            arguments={
                "verifier": token.verifier,
                "attributes": token.attributes,
                "tenant_claim": _short(token.claims.get(self.settings.tenant_claim)),
            },
            transport="streamable-http",
            error_class=type(exc).__name__,
            result_text=sentence,
            duration_ms=0.0,
        )
        try:
            self.manager.log_call(identity, record)
        except BackendUnavailable:
            log.exception("call %s: the denied call could not be logged", call_id)


def _refusal(exc: AccessDenied | InvalidArgument) -> tuple[str, str]:
    """The 403's error code and its one sentence."""
    if isinstance(exc, TenantUnmapped):
        return "tenant_not_mapped", UNMAPPED_SENTENCE
    if isinstance(exc, InvalidArgument):
        return "invalid_identity", INVALID_ID_SENTENCE
    if isinstance(exc, TenantNotSetUp):
        return "tenant_not_set_up", NOT_SET_UP_SENTENCE
    return "tenant_mismatch", MISMATCH_SENTENCE


def _requested(conn: HTTPConnection) -> str:
    """The tool (or method) the request names in its Mcp-Name / Mcp-Method headers; the body is not read."""
    method = conn.headers.get("mcp-method")
    name = conn.headers.get("mcp-name")
    if method == "tools/call" and name:
        return name[:_MAX_LOGGED]
    return (method or "(http request)")[:_MAX_LOGGED]


def _short(value: object) -> str | None:
    return value[:_MAX_LOGGED] if isinstance(value, str) and value else None
