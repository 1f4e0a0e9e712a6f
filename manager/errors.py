"""One error tree for memgate. Each error carries data (field, hint) as well as text.

Every boundary translates from this tree once: the backend maps driver errors onto it,
the toolbox dispatcher maps it onto one sentence for the model, the CLI onto `Error: ...`
with the fix. `status` is what mcp_call_log records when the error ends a tool call.
"""

from __future__ import annotations


class MemgateError(Exception):
    """Base of every error memgate raises on purpose."""

    #: the status written to mcp_call_log when this error ends a tool call
    status = "error"

    def __init__(self, message: str, *, field: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.hint = hint

    def with_hint(self) -> str:
        """The message and the fix as two sentences (a message need not end with a full stop)."""
        if not self.hint:
            return self.message
        ended = self.message.rstrip().endswith((".", "!", "?", ":"))
        return f"{self.message.rstrip()}{'' if ended else '.'} {self.hint}"


class ConfigError(MemgateError):
    """Settings or launch configuration are wrong."""


class SchemaMismatch(ConfigError):
    """The database schema version is not the one this memgate knows."""


class AccessDenied(MemgateError):
    """The caller's identity or the tool's access policy does not allow this."""

    status = "denied"


class TenantUnmapped(AccessDenied):
    """A verified token names no tenant and no tenant mapping matches it."""


class TenantMismatch(AccessDenied):
    """A token's tenant claim and a tenant mapping, or two mappings, name different tenants."""


class NotIssued(AccessDenied):
    """A memory id that the caller's current context window did not issue as a pointer or summary."""


class NotVisible(AccessDenied):
    """An id the caller cannot read: absent, no longer current, or behind the wall; the three are not told apart."""


class ImageNotShown(NotIssued):
    """An image id no result the caller received showed, or an image it can no longer read."""


class ImageNotVisible(NotVisible):
    """An image id the caller cannot read now: absent, deleted, or behind the wall, not told apart."""


class NotFound(MemgateError):
    """The thing asked for does not exist for this caller."""


class InvalidArgument(MemgateError):
    """An argument is malformed; `field` names it."""

    status = "invalid"


class QueryRejected(InvalidArgument):
    """A query failed admission; `rule` names which rule."""

    def __init__(self, message: str, *, rule: str, hint: str | None = None):
        super().__init__(message, field="query", hint=hint)
        self.rule = rule


class ContextTooSmall(ConfigError):
    """The context budget cannot hold what a window must show whole; `field` names the slice."""


class Conflict(MemgateError):
    """A concurrent writer changed the thing first; nothing was written."""


class QueryTimeout(MemgateError):
    """A query ran past its time limit and was ended."""

    status = "timeout"


class BackendUnavailable(MemgateError):
    """The database cannot be reached or opened."""


class DatabaseBusy(BackendUnavailable):
    """Another writer held the lock past the busy timeout: the same write may succeed moments later."""


class RowRefused(ConfigError):
    """A toolbox row that cannot become a tool (handler not allowlisted, schema it cannot honour)."""


class RowGone(AccessDenied):
    """The listed toolbox row was disabled, expired or replaced before the call ran."""


class NoCaller(AccessDenied):
    """There is no caller to resolve (e.g. FastMCP listing tools at start-up, outside any request)."""
