"""access_policy: who may call a toolbox row, re-checked on every call.

Policy JSON keys (all optional):
  required_scopes: every scope listed must be in the verified token
  required_roles: at least one role listed must be in the verified claims
  allowed_commands: for handlers with commands (memory), the commands allowed
  memory_store: for the memory handler, which store: {"scope": "agent"|"user"|"session"|
    "shared"|"global"|"context", "name": ..., "context_key": ...} (manager/files/stores.py)
  annotations: MCP tool annotations that override the handler's defaults, e.g.
    {"openWorldHint": true}; keys readOnlyHint, destructiveHint, idempotentHint, openWorldHint,
    values true or false. A row whose handler can write may not claim readOnlyHint.
  structured_output: true adds an outputSchema and structuredContent (handlers that have one)
  public_links: for the search and fetch handlers, the base URL of the operator's pages for
    knowledge-base documents: a citation link is <base>/<document id>[#<chunk id>] unless the
    document's source is itself a web address (manager/kb/links.py)
  remember: for the remember handler, {"default_scope": "user", "scopes": ["user", "agent", "thread"]}:
    the scope a proposal gets when it names none, and the scopes a caller may ask for (tenant-wide
    only when listed); manager/promotion/gate.py
  report: for the report handler, the reviewed statement: {"sql": "SELECT ... :name ...",
    "max_rows": 100 (optional; clamped to caps.max_rows)}
"""

from __future__ import annotations

from typing import Any

from memgate.manager import AccessDenied, Identity, InvalidArgument, is_web_url, validate_store_policy

from .handlers.spec import HINTS

POLICY_KEYS = {
    "required_scopes",
    "required_roles",
    "allowed_commands",
    "memory_store",
    "annotations",
    "structured_output",
    "report",
    "public_links",
    "remember",
}
REPORT_KEYS = {"sql", "max_rows"}
#: keys whose value is a list of strings
_LIST_KEYS = {"required_scopes", "required_roles", "allowed_commands"}


def validate_policy(policy: dict[str, Any]) -> None:
    unknown = set(policy) - POLICY_KEYS
    if unknown:
        raise InvalidArgument(
            f"access_policy has unknown keys {sorted(unknown)}; allowed: {sorted(POLICY_KEYS)}", field="access_policy"
        )
    for key in _LIST_KEYS & set(policy):
        value = policy[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidArgument(f"access_policy.{key} must be a list of strings", field=f"access_policy.{key}")
    if "memory_store" in policy:
        validate_store_policy(policy["memory_store"])
    if "annotations" in policy:
        _validate_annotations(policy["annotations"])
    if not isinstance(policy.get("structured_output", False), bool):
        raise InvalidArgument(
            "access_policy.structured_output must be true or false", field="access_policy.structured_output"
        )
    if "report" in policy:
        _validate_report(policy["report"])
    if "public_links" in policy:
        _validate_public_links(policy["public_links"])


def _validate_annotations(value: Any) -> None:
    field = "access_policy.annotations"
    if not isinstance(value, dict):
        raise InvalidArgument(f'{field} must be an object like {{"openWorldHint": true}}', field=field)
    unknown = sorted(set(value) - set(HINTS))
    if unknown:
        raise InvalidArgument(f"{field} has unknown keys {unknown}; allowed: {list(HINTS)}", field=field)
    for key, hint in value.items():
        if not isinstance(hint, bool):
            raise InvalidArgument(f"{field}.{key} must be true or false, got {hint!r:.40}", field=f"{field}.{key}")


def _validate_public_links(value: Any) -> None:
    field = "access_policy.public_links"
    if not isinstance(value, str) or not is_web_url(value) or "#" in value or "?" in value:
        raise InvalidArgument(
            f"{field} must be an http or https base URL without a query or fragment, "
            f'e.g. "https://kb.example.com/memgate/"',
            field=field,
        )


def _validate_report(value: Any) -> None:
    field = "access_policy.report"
    if not isinstance(value, dict) or set(value) - REPORT_KEYS:
        raise InvalidArgument(f"{field} must be an object with the keys {sorted(REPORT_KEYS)}", field=field)
    sql = value.get("sql")
    if not isinstance(sql, str) or not sql.strip():
        raise InvalidArgument(f"{field}.sql must be the report's SELECT statement", field=f"{field}.sql")
    rows = value.get("max_rows")
    if rows is not None and (type(rows) is not int or rows < 1):
        raise InvalidArgument(f"{field}.max_rows must be a positive integer", field=f"{field}.max_rows")


def check_access(policy: dict[str, Any], identity: Identity) -> None:
    missing = set(policy.get("required_scopes", ())) - identity.scopes
    if missing:
        raise AccessDenied(f"missing scopes {sorted(missing)}")
    roles = set(policy.get("required_roles", ()))
    if roles and not roles & identity.roles:
        raise AccessDenied(f"needs one of the roles {sorted(roles)}")


def missing_scopes(policy: dict[str, Any], identity: Identity) -> list[str]:
    """The row's required scopes the identity lacks, in the row's order."""
    return [s for s in policy.get("required_scopes", ()) if s not in identity.scopes]


def may_call(policy: dict[str, Any], identity: Identity) -> bool:
    try:
        check_access(policy, identity)
    except AccessDenied:
        return False
    return True


def allowed_commands(policy: dict[str, Any]) -> list[str] | None:
    return policy.get("allowed_commands")
