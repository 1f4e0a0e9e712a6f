"""The `report` handler: one reviewed SELECT with named binds (the row's access_policy.report), as a tool.

The row's tool_schema is the whole argument model: each property is one `:name` bind of
the statement (checked when the row is written, by the manager's report admission), of
one scalar type, and every call is validated against it strictly, so an unknown,
missing or mistyped bind is refused naming the field. A property the caller leaves out
binds its `default`, or NULL.
"""

from __future__ import annotations

from typing import Any

import jsonschema

from memgate.manager import InvalidArgument, ToolRow

from .spec import HandlerSpec

#: the JSON types a bind may have: the values a driver binds
BIND_TYPES = ("string", "integer", "number", "boolean")


def check_report_row(row: ToolRow) -> None:
    if "report" not in row.access_policy:
        raise InvalidArgument(
            'a report row needs access_policy.report: {"sql": "SELECT ..."}', field="access_policy.report"
        )
    checked = jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers
    for name, prop in (row.tool_schema.get("properties") or {}).items():
        field = f"tool_schema.properties.{name}"
        if not isinstance(prop, dict) or prop.get("type") not in BIND_TYPES:
            raise InvalidArgument(f"{field}: a report bind has one type of {list(BIND_TYPES)}", field=field)
        if "format" in prop and prop["format"] not in checked:
            raise InvalidArgument(
                f"{field}: format {prop['format']!r} would not be checked; use a pattern", field=field
            )


def report_arguments(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Every declared bind, valued: the caller's, else the schema's default, else NULL."""
    props = schema.get("properties") or {}
    return {"binds": {name: arguments.get(name, prop.get("default")) for name, prop in props.items()}}


SPEC = HandlerSpec(
    "report", "run_report", None, takes_policy=True, row_arguments=report_arguments, check_row=check_report_row
)
