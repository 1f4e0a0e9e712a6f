"""One tool call, start to end: re-check, validate, call one manager method, log.

Every outcome (ok, denied, invalid, error, timeout) writes exactly one
mcp_call_log row, before the answer goes back. The model gets a generic sentence
for failures; the operator log gets the detail.

A row the database cannot take now is held in memory and written later (call_log_writer.py);
a call that failed because the database was busy holds its row at once rather than wait a
second busy timeout for it.
"""

from __future__ import annotations

import base64
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import anyio
import jsonschema
from fastmcp.exceptions import ToolError
from fastmcp.tools import Tool
from fastmcp.tools.base import ToolResult
from mcp.types import ImageContent, TextContent
from pydantic import ValidationError

from memgate.manager import (
    CallRecord,
    DatabaseBusy,
    Identity,
    InvalidArgument,
    MemgateError,
    MemoryManager,
    RowGone,
    RowRefused,
    ToolOutput,
    ToolRow,
    clip_echo,
    now_iso,
)

from . import agent_errors
from .argument_values import argument_problem
from .call_log_writer import CallLogWriter
from .handlers import HANDLERS
from .policy import check_access, may_call
from .rows import RowTool, checked_row

log = logging.getLogger("memgate.toolbox")


def app_only(handler: str) -> bool:
    """Whether a handler's tool is called only by an MCP App view (`_meta.ui.visibility` ["app"])."""
    spec = HANDLERS.get(handler)
    return spec is not None and spec.ui is not None and "model" not in spec.ui.visibility


#: what the call log records for a call whose answer is a request for the user's input
ASKED_THE_USER = "(asked the user for input; the answer comes in a second call)"


#: the _meta key of a result's notice (a spent context window), beside the line in its text
NOTICE_META = "memgate/notice"


class StructuredOutputInvalid(Exception):
    """A result's structured content does not match the handler's outputSchema (a server bug)."""


@dataclass(frozen=True)
class CallContext:
    """Trusted facts about the caller, supplied by the server for each request."""

    identity: Identity
    transport: str | None = None
    #: the client declared the MCP Apps extension (io.modelcontextprotocol/ui): it renders ui:// views,
    #: so app-only tools (the memory view's review_candidate) are offered to it, and only to it
    renders_apps: bool = False


CallContextResolver = Callable[[], CallContext]


class ToolDispatcher:
    def __init__(self, manager: MemoryManager, resolve: CallContextResolver):
        self.manager = manager
        self.resolve = resolve
        self.log_writer = CallLogWriter(manager)

    async def __call__(self, tool: RowTool, arguments: dict[str, Any]) -> ToolResult:
        started = time.perf_counter()
        call_id = str(uuid.uuid4())
        ctx = self.resolve()
        # The database session of the call says which tool and call it serves (Oracle: V$SESSION).
        ctx = replace(ctx, identity=replace(ctx.identity, tool=tool.name, call_id=call_id))
        record = CallRecord(
            call_id=call_id,
            called_at=now_iso(),
            tool_name=tool.name,
            status="ok",
            arguments=arguments,
            handler=tool.row.tool_handler,
            toolbox_row_id=tool.row.id,
            toolbox_row_version=tool.row.version,
            transport=ctx.transport,
        )
        claim = _LogClaim()
        try:
            output, structured, logged = await self._run(
                tool, arguments, ctx.identity, record, started, claim, ctx.renders_apps
            )
        except BaseException as exc:
            if not claim.take(_LOOP):
                # The worker finished the call and logged it as it ran out of time: answer with its result.
                if not isinstance(exc, TimeoutError) or not await anyio.to_thread.run_sync(claim.done.wait, 30.0):
                    raise
                output, structured = claim.outcome
                logged = True
            else:
                status, message = self._failure(exc, tool, call_id)
                record = replace(
                    record, status=status, error_class=type(exc).__name__, result_text=message, duration_ms=_ms(started)
                )
                # Shielded: a call cancelled because its client went away still writes its one row
                # (unshielded, the await of the write was cancelled too and the row was lost).
                with anyio.CancelScope(shield=True):
                    await self._log(ctx.identity, record, hold=isinstance(exc, DatabaseBusy))
                if isinstance(exc, (KeyboardInterrupt, SystemExit, anyio.get_cancelled_exc_class())):
                    raise
                # _failure logged the call's one line; DEBUG keeps FastMCP from logging a second.
                raise ToolError(message, log_level=logging.DEBUG) from None
        if isinstance(output, ToolResult):  # the handler's own answer: a request for the user's input
            await self._log(ctx.identity, replace(record, result_text=ASKED_THE_USER, duration_ms=_ms(started)))
            return output
        if not logged:
            await self._log(ctx.identity, _done(record, output, started))
        images = [
            ImageContent(type="image", data=base64.b64encode(i.data).decode("ascii"), mime_type=i.mime_type)
            for i in output.images
        ]
        return ToolResult(
            content=[TextContent(type="text", text=_shown(output)), *images],
            is_error=output.is_error,
            structured_content=structured,
            meta={NOTICE_META: output.notice} if output.notice else None,
        )

    async def gone(self, tool: Tool, arguments: dict[str, Any]) -> ToolResult:
        """A call to a name with no active row: denied and logged, and told whether the tool ever
        existed for this caller (disabled or expired: "no longer available") or never did."""
        ctx = self.resolve()
        call_id = str(uuid.uuid4())
        try:
            existed = await anyio.to_thread.run_sync(lambda: self.manager.tool_existed(ctx.identity, tool.name))
        except Exception:  # the refusal stands either way; only its wording depends on this
            log.error("call %s to %r: cannot read toolbox history", call_id, tool.name, exc_info=True)
            existed = True
        message = agent_errors.UNAVAILABLE_TOOL if existed else agent_errors.unknown_tool(tool.name)
        log.warning(
            "call %s to %r denied: %s for tenant %s",
            call_id,
            tool.name,
            "no active toolbox row" if existed else "no toolbox row by that name",
            ctx.identity.tenant,
        )
        await self._log(
            ctx.identity,
            CallRecord(
                call_id=call_id,
                called_at=now_iso(),
                tool_name=tool.name,
                status="denied",
                arguments=arguments,
                transport=ctx.transport,
                error_class="RowGone" if existed else "UnknownTool",
                result_text=message,
                duration_ms=0.0,
            ),
        )
        raise ToolError(message, log_level=logging.DEBUG)

    async def _run(
        self,
        tool: RowTool,
        arguments: dict[str, Any],
        identity: Identity,
        record: CallRecord,
        started: float,
        claim: _LogClaim,
        renders_apps: bool = False,
    ) -> tuple[Any, dict[str, Any] | None, bool]:
        """(the method's ToolOutput or the handler's ToolResult, structured content, whether it is logged)."""
        timeout = self.manager.caps.query_timeout_s + 5
        if tool.spec.interact is None:
            # One worker-thread hop for the re-read, the checks, the method and the call-log row:
            # each hop costs more than the checks themselves once a row's schema is checked, and
            # on a busy machine a hop waits for a time slice. The row is still written before
            # the answer goes back; the claim makes sure a call the loop gave up on is logged
            # once, as the loop saw it.
            def call_and_log() -> tuple[ToolOutput, dict[str, Any] | None, bool]:
                spec, kwargs = self._prepare(tool, arguments, identity, renders_apps)
                output = self._invoke(spec, kwargs, identity, record.call_id, tool.name)
                structured = _structured(tool, output)
                if not claim.take(_WORKER):
                    return output, structured, True  # the loop timed out first and logged that
                self.log_writer.write(identity, _done(record, output, started))
                claim.outcome = (output, structured)
                claim.done.set()
                return output, structured, True

            with anyio.fail_after(timeout):
                return await anyio.to_thread.run_sync(call_and_log, abandon_on_cancel=True)
        spec, kwargs = await anyio.to_thread.run_sync(lambda: self._prepare(tool, arguments, identity, renders_apps))
        step = await self._interact(spec, kwargs, record.call_id, tool.name)
        if isinstance(step, ToolResult):
            return step, None, False
        kwargs.update(step)
        with anyio.fail_after(timeout):
            output = await anyio.to_thread.run_sync(
                lambda: self._invoke(spec, kwargs, identity, record.call_id, tool.name), abandon_on_cancel=True
            )
        return output, _structured(tool, output), False

    async def _interact(self, spec: Any, kwargs: dict[str, Any], call_id: str, tool_name: str) -> Any:
        """The handler's talk with the client (in the request's event loop), under caps.elicit_timeout_s.

        Past the deadline the step is `{"action": "timeout"}`: the method records it and the
        call answers (and is logged) as a timeout, instead of holding the call open.
        """
        limit = self.manager.caps.elicit_timeout_s
        with anyio.move_on_after(limit):
            return await spec.interact(dict(kwargs))
        log.warning("call %s to %s: the client did not answer within %s s", call_id, tool_name, limit)
        return {"action": "timeout"}

    def _prepare(
        self, tool: RowTool, arguments: dict[str, Any], identity: Identity, renders_apps: bool = False
    ) -> tuple[Any, dict[str, Any]]:
        """Re-read and re-check the row, validate the arguments: the handler spec and the method's kwargs."""
        row = self._current_row(tool, identity)
        check_access(row.access_policy, identity)
        checked = checked_row(row)
        spec = checked.spec
        if problem := argument_problem(arguments):
            field, reason = problem
            raise InvalidArgument(reason, field=field)
        _validate(arguments, checked.validator)
        if spec.args_model is None:  # the row's schema is the whole argument model (report binds)
            kwargs = spec.row_arguments(arguments, row.tool_schema)
        else:
            try:
                args = spec.args_model.model_validate(arguments)
            except ValidationError as exc:
                err = exc.errors()[0]
                raise InvalidArgument(err["msg"], field=".".join(str(p) for p in err["loc"]) or None) from exc
            kwargs = args.model_dump(exclude_unset=True)
        if spec.takes_policy:
            kwargs["policy"] = row.access_policy
        if spec.offers is not None:
            kwargs[spec.offers[1]] = self._offered(spec.offers[0], identity, renders_apps)
        return spec, kwargs

    def _offered(self, handler: str, identity: Identity, renders_apps: bool) -> str | None:
        """The name of the caller's active row with `handler` that it may call, or None (an app-only
        handler is callable only from a client that renders MCP Apps)."""
        if app_only(handler) and not renders_apps:
            return None
        for raw in self.manager.active_tools(identity):
            if raw["tool_handler"] == handler and may_call(ToolRow.from_row(raw).access_policy, identity):
                return raw["tool_name"]
        return None

    def _invoke(
        self, spec: Any, kwargs: dict[str, Any], identity: Identity, call_id: str, tool_name: str
    ) -> ToolOutput:
        method = getattr(self.manager, spec.method)

        def call() -> ToolOutput:
            return method(identity, **kwargs)

        if not spec.charged:
            return call()
        return self.manager.run_tool_round(identity, call_id=call_id, tool_name=tool_name, call=call)

    def _current_row(self, tool: RowTool, identity: Identity) -> ToolRow:
        """Re-read the row: it must still be active for this caller and at the listed version."""
        rows = self.manager.active_tools(identity, tool.name)
        if not rows:
            raise RowGone(f"toolbox row {tool.name!r} is no longer active")
        row = ToolRow.from_row(rows[0])
        if row.id != tool.row.id or row.version != tool.row.version:
            raise RowGone(f"toolbox row {tool.name!r} changed from version {tool.row.version} to {row.version}")
        return row

    def _failure(self, exc: BaseException, tool: RowTool, call_id: str) -> tuple[str, str]:
        if isinstance(exc, RowGone):
            log.warning("call %s to %s denied: %s", call_id, tool.name, exc)
            return "denied", agent_errors.UNAVAILABLE_TOOL
        if isinstance(exc, RowRefused):
            log.error("call %s to %s refused: toolbox row cannot be served: %s", call_id, tool.name, exc)
            return "error", agent_errors.agent_message(exc, call_id)
        if isinstance(exc, TimeoutError):
            log.warning("call %s to %s timed out", call_id, tool.name)
            return "timeout", agent_errors.TIMEOUT
        if isinstance(exc, anyio.get_cancelled_exc_class()):
            log.warning(
                "call %s to %s was cancelled: the client went away or the server is stopping", call_id, tool.name
            )
            return "error", agent_errors.agent_message(exc, call_id)
        if isinstance(exc, MemgateError):
            level = logging.ERROR if exc.status == "error" else logging.WARNING
            log.log(
                level,
                "call %s to %s ended %s: %s",
                call_id,
                tool.name,
                exc.status,
                exc.message,
                exc_info=exc.status == "error",
            )
            return exc.status, agent_errors.agent_message(exc, call_id)
        log.error("call %s to %s failed", call_id, tool.name, exc_info=exc)
        return "error", agent_errors.agent_message(exc, call_id)

    async def _log(self, identity: Identity, record: CallRecord, *, hold: bool = False) -> None:
        if hold:  # the database was busy for this call: do not wait a second busy timeout for its row
            self.log_writer.hold(identity, record, "the database was busy for the call itself")
            return
        await anyio.to_thread.run_sync(lambda: self.log_writer.write(identity, record))


_LOOP, _WORKER = "loop", "worker"


class _LogClaim:
    """Who writes a call's one log row: the worker that finished the call, or the loop that gave up on it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: str | None = None
        #: set once the worker has written its row; `outcome` is then (output, structured)
        self.done = threading.Event()
        self.outcome: tuple[ToolOutput, dict[str, Any] | None] | None = None

    def take(self, who: str) -> bool:
        with self._lock:
            if self._owner is None:
                self._owner = who
            return self._owner == who


def _done(record: CallRecord, output: ToolOutput, started: float) -> CallRecord:
    return replace(
        record,
        status=output.status,
        rows_returned=output.rows,
        truncated=output.truncated,
        result_tokens=output.tokens,
        result_text=_shown(output),
        cited_ids=output.cited_ids,
        duration_ms=_ms(started),
    )


def _shown(output: ToolOutput) -> str:
    """The text the model gets: a notice about the call (a spent window) on its own line before the
    result, unless the result is a fixed shape a host parses (its notice is in _meta only)."""
    if output.notice and not output.wire_format:
        return f"{output.notice}\n{output.text}"
    return output.text


def _structured(tool: RowTool, output: ToolOutput) -> dict[str, Any] | None:
    """The structuredContent of a row with structured output: ToolOutput.structured, checked.

    Clients check it against the outputSchema and fail hard when it does not match (the
    server sends it unchecked), so a mismatch fails this call instead, logged for the operator.
    """
    schema = tool.output_schema
    if schema is None or output.is_error:
        return None
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(output.structured))
    if error is not None:
        raise StructuredOutputInvalid(
            f"structured output does not match the {tool.row.tool_handler} outputSchema "
            f"at {'/'.join(map(str, error.absolute_path)) or 'the top'}: {error.message}"
        )
    return output.structured


def _validate(arguments: dict[str, Any], validator: jsonschema.Draft202012Validator) -> None:
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    if error is not None:
        field = ".".join(str(p) for p in error.absolute_path) or _missing_field(error)
        hint = ""
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            unexpected = [k for k in error.instance if k not in error.schema.get("properties", {})]
            hint = agent_errors.did_you_mean(unexpected, error.schema, error.instance)
        raise InvalidArgument(_short_message(error) + hint, field=field)


_ECHO_CHARS = 60
_MESSAGE_CHARS = 300


def _short_message(error: jsonschema.ValidationError) -> str:
    """jsonschema's message, but never echoing a long argument back to the model."""
    message = error.message
    shown = repr(error.instance)
    if len(shown) > _ECHO_CHARS:
        message = message.replace(shown, clip_echo(shown, _ECHO_CHARS))
    return message if len(message) <= _MESSAGE_CHARS else message[: _MESSAGE_CHARS - 1] + "…"


def _missing_field(error: jsonschema.ValidationError) -> str | None:
    if error.validator == "required" and "'" in error.message:
        return error.message.split("'")[1]
    return None


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


__all__ = ["CallContext", "CallContextResolver", "ToolDispatcher"]
