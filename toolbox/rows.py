"""Turning a toolbox_memory row into an MCP tool: pure, tested without a server.

A row is refused (RowRefused, with the reason for the operator log) when its
handler is not on the allowlist, its schema is not valid JSON Schema, or the
handler cannot honour it: a property the handler does not take, a required
argument the schema does not require, or unknown access_policy keys.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

import jsonschema
from fastmcp.tools import Tool
from fastmcp.tools.base import ToolResult

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
    fields = spec.args_model.model_fields
    props = set(schema.get("properties", {}))
    for old, new in (spec.renamed or {}).items():
        if old in props:
            raise RowRefused(f"tool_schema names the argument {old!r}, which the {spec.name} handler now calls "
                             f"{new!r}. Run memgate init --tenant with the row's tenant to upgrade a default row "
                             f"that was never edited, or rename the property in the row's tool_schema")
    unknown = props - set(fields)
    if unknown:
        raise RowRefused(f"tool_schema has properties the {spec.name} handler does not take: {sorted(unknown)}")
    model_required = {n for n, f in fields.items() if f.is_required()}
    missing = model_required - set(schema.get("required", []))
    if missing:
        raise RowRefused(f"tool_schema must require {sorted(missing)} for the {spec.name} handler")
    try:
        validate_policy(row.access_policy)
    except InvalidArgument as exc:
        raise RowRefused(exc.message) from exc
    problems = subset_problems(portable(schema))
    if problems:
        raise RowRefused("tool_schema uses what Gemini's function calling refuses: " + "; ".join(problems[:3]))
    return spec


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


def tool_from_row(row: ToolRow, call: RowCall, *, generated_help: str | None = None) -> RowTool:
    """The row as a tool; `generated_help` (the handler's describe hook) follows the usage notes."""
    spec = check_row(row)
    return RowTool(
        name=row.tool_name,
        description=f"{row.usage_notes}\n\n{generated_help}" if generated_help else row.usage_notes,
        parameters=advertised_schema(row, spec),
        row=row,
        spec=spec,
        call=call,
        meta={"memgate/toolbox_row": row.id, "memgate/version": row.version},
    )
