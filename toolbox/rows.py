"""Turning a toolbox_memory row into an MCP tool: pure, tested without a server.

A row is refused (RowRefused, with the reason for the operator log) when its
handler is not on the allowlist, its schema is not valid JSON Schema, or the
handler cannot honour it: a property the handler does not take, a required
argument the schema does not require, unknown access_policy keys, structured
output the handler has none of, or a read-only claim by a row that can write.

The tool's annotations come from the handler (HandlerSpec.hints, from the row's
policy and schema), overridden key by key by access_policy.annotations.
"""

from __future__ import annotations

import copy
import json
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import jsonschema
from fastmcp.tools import Tool
from fastmcp.tools.base import ToolResult
from mcp.types import ToolAnnotations

from memgate.manager import InvalidArgument, RowRefused, ToolRow

from .handlers import HANDLERS, HandlerSpec
from .policy import validate_policy
from .portable_schema import portable, subset_problems

RowCall = Callable[["RowTool", dict[str, Any]], Awaitable[ToolResult]]


class RowTool(Tool):
    """A tool backed by one toolbox row version; the dispatcher does the work."""

    row: Any = None  # ToolRow
    spec: Any = None
    call: Any = None  # RowCall, set by the provider

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return await self.call(self, arguments)

    def get_meta(self) -> dict[str, Any]:
        """Our keys only: FastMCP's own ("fastmcp": {"tags": []}) says nothing to a host."""
        meta = super().get_meta()
        meta.pop("fastmcp", None)
        return meta


class GoneTool(Tool):
    """Stands in for a tool name with no active row for this caller, so the call is still logged."""

    call: Any = None  # the dispatcher's `gone`

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return await self.call(self, arguments)


def check_row(row: ToolRow) -> HandlerSpec:
    """The row's handler spec, or RowRefused saying why the row cannot be served."""
    spec = HANDLERS.get(row.tool_handler)
    if spec is None:
        raise RowRefused(f"handler {row.tool_handler!r} is not on the allowlist {sorted(HANDLERS)}")
    schema = row.tool_schema
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise RowRefused(f"tool_schema is not valid JSON Schema: {exc.message}") from exc
    if schema.get("type") != "object":
        raise RowRefused('tool_schema must have "type": "object"')
    if spec.args_model is not None:
        _check_arguments(schema, spec)
    try:
        validate_policy(row.access_policy)
        if spec.check_row is not None:
            spec.check_row(row)
    except InvalidArgument as exc:
        raise RowRefused(exc.message) from exc
    if row.access_policy.get("structured_output") and spec.output_schema is None:
        raise RowRefused(
            f"access_policy.structured_output is set, but the {spec.name} handler has no "
            "structured output; remove the key"
        )
    problems = subset_problems(portable(schema))
    if problems:
        raise RowRefused("tool_schema uses what Gemini's function calling refuses: " + "; ".join(problems[:3]))
    return spec


def _check_arguments(schema: dict[str, Any], spec: HandlerSpec) -> None:
    """The schema's properties are arguments the handler's model takes, and it requires what the model does."""
    fields = spec.args_model.model_fields
    props = set(schema.get("properties", {}))
    for old, new in (spec.renamed or {}).items():
        if old in props:
            raise RowRefused(
                f"tool_schema names the argument {old!r}, which the {spec.name} handler now calls "
                f"{new!r}. Run memgate init --tenant with the row's tenant to upgrade a default row "
                f"that was never edited, or rename the property in the row's tool_schema"
            )
    unknown = props - set(fields)
    if unknown:
        raise RowRefused(f"tool_schema has properties the {spec.name} handler does not take: {sorted(unknown)}")
    model_required = {n for n, f in fields.items() if f.is_required()}
    missing = model_required - set(schema.get("required", []))
    if missing:
        raise RowRefused(f"tool_schema must require {sorted(missing)} for the {spec.name} handler")


def validation_schema(row: ToolRow, spec: HandlerSpec) -> dict[str, Any]:
    """The schema every call is validated against: strict (unknown arguments refused), shaped by the policy."""
    schema = copy.deepcopy(row.tool_schema)
    schema.setdefault("additionalProperties", False)
    if spec.shape_schema is not None:
        schema = spec.shape_schema(schema, row.access_policy)
    return schema


def advertised_schema(row: ToolRow, spec: HandlerSpec) -> dict[str, Any]:
    """The inputSchema hosts see: the validation schema in the subset every host takes (portable_schema.py)."""
    return portable(validation_schema(row, spec))


def row_annotations(row: ToolRow, spec: HandlerSpec, schema: dict[str, Any]) -> ToolAnnotations:
    """The handler's hints for this row (from its policy and validation schema), then the row's overrides.

    A row that can write may not call itself read-only: hosts skip confirmation for read-only tools.
    """
    default = spec.hints(row.access_policy, schema)
    hints = {**default, **row.access_policy.get("annotations", {})}
    if hints["readOnlyHint"] and not default["readOnlyHint"]:
        raise RowRefused(
            f"access_policy.annotations.readOnlyHint is true, but this {spec.name} row can change "
            "data; remove the key, or allow only reading commands"
        )
    return ToolAnnotations(**hints)


@dataclass(frozen=True)
class CheckedRow:
    """What the checks of one row version produced: everything a list or a call needs from its schema."""

    spec: HandlerSpec
    #: the strict schema every call is validated against, and its compiled validator
    schema: dict[str, Any]
    validator: jsonschema.Draft202012Validator
    #: the inputSchema hosts see
    advertised: dict[str, Any]
    annotations: ToolAnnotations


class _CheckedRows:
    """Checked rows by row id, version and content, least recently used dropped first.

    Checking a row (the schema against the JSON Schema metaschema, the handler's own checks,
    building the validator) costs milliseconds, and every list and every call needs it; a
    row version's content does not change, so it is done once. The key holds the content
    too, so a row edited in place under the same version is checked again, never served
    from an old check. Refusals are not kept: a refused row is checked (and logged) again.
    """

    def __init__(self, size: int = 512):
        self._size = size
        self._rows: OrderedDict[tuple, CheckedRow] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, row: ToolRow) -> CheckedRow:
        key = (
            row.id,
            row.version,
            row.tool_name,
            row.tool_handler,
            json.dumps(row.tool_schema, sort_keys=True),
            json.dumps(row.access_policy, sort_keys=True),
        )
        with self._lock:
            checked = self._rows.get(key)
            if checked is not None:
                self._rows.move_to_end(key)
                return checked
        checked = _check(row)
        with self._lock:
            self._rows[key] = checked
            while len(self._rows) > self._size:
                self._rows.popitem(last=False)
        return checked

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()


def _check(row: ToolRow) -> CheckedRow:
    spec = check_row(row)
    schema = validation_schema(row, spec)
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    return CheckedRow(
        spec=spec,
        schema=schema,
        validator=validator,
        advertised=portable(schema),
        annotations=row_annotations(row, spec, schema),
    )


_CHECKED = _CheckedRows()


def checked_row(row: ToolRow) -> CheckedRow:
    """The row's checks, done once per row version (RowRefused when it cannot be served)."""
    return _CHECKED.get(row)


def tool_from_row(row: ToolRow, call: RowCall, *, generated_help: str | None = None) -> RowTool:
    """The row as a tool; `generated_help` (the handler's describe hook) follows the usage notes."""
    checked = checked_row(row)
    spec = checked.spec
    structured = bool(row.access_policy.get("structured_output"))
    return RowTool(
        name=row.tool_name,
        description=f"{row.usage_notes}\n\n{generated_help}" if generated_help else row.usage_notes,
        # A copy: the tool is the server's to change; the checked schema stays as checked.
        parameters=copy.deepcopy(checked.advertised),
        output_schema=spec.output_schema if structured else None,
        annotations=checked.annotations,
        row=row,
        spec=spec,
        call=call,
        meta={"memgate/toolbox_row": row.id, "memgate/version": row.version, **(spec.ui.meta() if spec.ui else {})},
    )
