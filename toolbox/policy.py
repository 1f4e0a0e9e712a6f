"""access_policy: who may call a toolbox row, re-checked on every call.

Policy JSON keys (all optional):
  required_scopes: every scope listed must be in the verified token
  required_roles: at least one role listed must be in the verified claims
  allowed_commands: for handlers with commands (memory), the commands allowed
  memory_store: for the memory handler, which store: {"scope": "agent"|"user"|"session"|
    "shared"|"global"|"context", "name": ..., "context_key": ...} (manager/files/stores.py)
"""

from __future__ import annotations

from typing import Any

from memgate.manager import AccessDenied, Identity, InvalidArgument, validate_store_policy

POLICY_KEYS = {"required_scopes", "required_roles", "allowed_commands", "memory_store"}
#: keys whose value is a list of strings
_LIST_KEYS = {"required_scopes", "required_roles", "allowed_commands"}


def validate_policy(policy: dict[str, Any]) -> None:
    unknown = set(policy) - POLICY_KEYS
    if unknown:
        raise InvalidArgument(f"access_policy has unknown keys {sorted(unknown)}; allowed: {sorted(POLICY_KEYS)}",
                              field="access_policy")
    for key in _LIST_KEYS & set(policy):
        value = policy[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidArgument(f"access_policy.{key} must be a list of strings", field=f"access_policy.{key}")
    if "memory_store" in policy:
        validate_store_policy(policy["memory_store"])


def check_access(policy: dict[str, Any], identity: Identity) -> None:
    missing = set(policy.get("required_scopes", ())) - identity.scopes
    if missing:
        raise AccessDenied(f"missing scopes {sorted(missing)}")
    roles = set(policy.get("required_roles", ()))
    if roles and not roles & identity.roles:
        raise AccessDenied(f"needs one of the roles {sorted(roles)}")


def allowed_commands(policy: dict[str, Any]) -> list[str] | None:
    return policy.get("allowed_commands")
