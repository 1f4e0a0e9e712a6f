"""The JSON Schema subset every host's function calling takes, and the advertised form of a row's schema.

Gemini's function declarations accept an OpenAPI 3.0 Schema subset, the narrowest of the
hosts memgate serves: no `$ref`/`$defs` ("reference to undefined schema"), no union types
or `anyOf` with null, every array with `items`, and no `additionalProperties` at all
(the API answers "Unknown name additionalProperties ... Cannot find field").

A row's schema is kept strict where it is enforced: the dispatcher validates every call
against the stored schema with `additionalProperties: false`, then against the handler's
strict model. Only the advertised copy drops `additionalProperties` (true or false; a
schema-valued one changes meaning, so it is refused like the rest).
"""

from __future__ import annotations

import copy
from typing import Any

#: the keywords Gemini's Schema object knows
KEYWORDS = frozenset(
    {
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "propertyOrdering",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "default",
        "example",
        "anyOf",
    }
)
TYPES = frozenset({"string", "number", "integer", "boolean", "array", "object"})
#: formats per type that Gemini documents
FORMATS = {"string": {"enum", "date-time"}, "number": {"float", "double"}, "integer": {"int32", "int64"}}


def portable(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy without boolean `additionalProperties` anywhere; everything else as it was."""
    out = copy.deepcopy(schema)
    _drop_boolean_additional(out)
    return out


def _drop_boolean_additional(node: Any) -> None:
    if isinstance(node, dict):
        if isinstance(node.get("additionalProperties"), bool):
            del node["additionalProperties"]
        for child in (node.get("properties") or {}).values():
            _drop_boolean_additional(child)
        _drop_boolean_additional(node.get("items"))
        for child in node.get("anyOf") or []:
            _drop_boolean_additional(child)


def subset_problems(schema: Any, where: str = "inputSchema") -> list[str]:
    """What in `schema` Gemini's function calling would refuse, one line each; [] when nothing."""
    problems: list[str] = []
    _check(schema, where, problems, top=True)
    return problems


def _check(node: Any, where: str, problems: list[str], *, top: bool = False) -> None:
    if not isinstance(node, dict):
        problems.append(f"{where} is not a schema object")
        return
    for key in sorted(set(node) - KEYWORDS):
        problems.append(f"{where} uses {key!r}")
    kind = node.get("type")
    if "anyOf" in node:
        branches = node["anyOf"]
        if not isinstance(branches, list) or not branches:
            problems.append(f"{where}.anyOf is not a non-empty list")
            return
        for i, branch in enumerate(branches):
            if isinstance(branch, dict) and branch.get("type") == "null":
                problems.append(f"{where}.anyOf[{i}] is null (use nullable)")
            else:
                _check(branch, f"{where}.anyOf[{i}]", problems)
        return
    if not isinstance(kind, str) or kind not in TYPES:
        problems.append(f"{where} has type {kind!r}, not one of {sorted(TYPES)}")
        return
    fmt = node.get("format")
    if fmt is not None and fmt not in FORMATS.get(kind, ()):
        problems.append(f"{where} has format {fmt!r}, which a {kind} cannot take")
    if "enum" in node and (kind != "string" or not all(isinstance(v, str) for v in node["enum"])):
        problems.append(f"{where}.enum must list strings on a string")
    if kind == "array":
        if not isinstance(node.get("items"), dict):
            problems.append(f"{where} is an array without one items schema")
        else:
            _check(node["items"], f"{where}.items", problems)
    if kind == "object":
        props = node.get("properties") or {}
        if not props and not top:
            problems.append(f"{where} is an object without properties")
        for name, child in props.items():
            _check(child, f"{where}.properties.{name}", problems)
        missing = [r for r in node.get("required", []) if r not in props]
        if missing:
            problems.append(f"{where}.required names {missing}, which are not properties")
