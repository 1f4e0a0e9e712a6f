"""The answers HTTP auth gives besides FastMCP's own 401s: each a JSON body with one sentence.

Raised from the bearer backend as starlette AuthenticationErrors, so starlette's
AuthenticationMiddleware hands them to `auth_error_response` (its `on_error`):

- TokenRefused        401 invalid_token (an oversized token, never sent to a verifier)
- InsufficientScope   403 insufficient_scope, with the scope the verifier that accepted it requires
- TenantRefused       403: the token speaks for no tenant, for two, or for one never set up
- VerifierUnavailable 503 temporarily_unavailable with Retry-After (outage.py)
"""

from __future__ import annotations

import json

from starlette.authentication import AuthenticationError
from starlette.requests import HTTPConnection
from starlette.responses import Response

from .outage import VerifierUnavailable


class TokenRefused(AuthenticationError):
    """The bearer token is refused before any verifier sees it."""


class InsufficientScope(AuthenticationError):
    """A verified token without a scope its verifier requires; `required` is all of them."""

    def __init__(self, scope: str, required: list[str]):
        super().__init__(f"Required scope: {scope}")
        self.required = required


class TenantRefused(AuthenticationError):
    """A verified token that no tenant (or more than one) is mapped to; the call is logged as denied."""

    def __init__(self, error: str, sentence: str):
        super().__init__(sentence)
        self.error = error
        self.sentence = sentence


class AuthResponses:
    """Builds each answer with the challenge parameters (scopes, metadata URL) of this server."""

    def __init__(self, *, challenge_scopes: list[str], resource_metadata_url: str | None, retry_after_s: int):
        self.challenge_scopes = challenge_scopes
        self.resource_metadata_url = resource_metadata_url
        self.retry_after_s = retry_after_s

    def __call__(self, conn: HTTPConnection, exc: Exception) -> Response:
        if isinstance(exc, VerifierUnavailable):
            return _json(
                503,
                {
                    "error": "temporarily_unavailable",
                    "error_description": "Token verification is unavailable right now; retry later.",
                },
                {"Retry-After": str(self.retry_after_s)},
            )
        if isinstance(exc, InsufficientScope):
            return self._challenge(403, "insufficient_scope", str(exc), exc.required)
        if isinstance(exc, TenantRefused):
            return _json(403, {"error": exc.error, "error_description": exc.sentence})
        if isinstance(exc, TokenRefused):
            return self._challenge(401, "invalid_token", str(exc))
        return _json(400, {"error": "invalid_request", "error_description": "The request could not be authenticated."})

    def insufficient_scope(self, description: str, scopes: list[str]) -> Response:
        """403 insufficient_scope naming exactly `scopes`, what the operation needs (step_up.py)."""
        return self._challenge(403, "insufficient_scope", description, scopes)

    def _challenge(self, status: int, error: str, description: str, scopes: list[str] | None = None) -> Response:
        parts = [f'error="{error}"', f'error_description="{description}"']
        scopes = self.challenge_scopes if scopes is None else scopes
        if scopes:
            parts.append(f'scope="{" ".join(scopes)}"')
        if self.resource_metadata_url:
            parts.append(f'resource_metadata="{self.resource_metadata_url}"')
        return _json(
            status,
            {"error": error, "error_description": description},
            {"WWW-Authenticate": "Bearer " + ", ".join(parts)},
        )


def _json(status: int, body: dict[str, str], headers: dict[str, str] | None = None) -> Response:
    # json.dumps with the default separators: the same bytes FastMCP's own auth errors carry
    return Response(
        json.dumps(body),
        status_code=status,
        media_type="application/json",
        headers={"Cache-Control": "no-store", **(headers or {})},
    )
