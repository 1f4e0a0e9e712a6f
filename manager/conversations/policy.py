"""The tenant's recall policy: which of the caller's conversations a window recalls from.

A guideline (`conversation_recall`), versioned like the context budget and the promotion policy, set
with `memgate turn policy`. Its content_json is `{"policy": NAME}`:

    same_user_agent  (default) conversations whose user and agent are exactly the caller's: the
                     context card's "scoped to this user and this agent before anything is ranked"
    same_user        every conversation of the caller's user that the wall shows it: its own agent's
                     and those of no agent. The wall never shows one agent's rows to another agent,
                     so a user with two agents does not recall across them; a caller with no agent
                     sees only conversations of no agent
    this_thread      only the current conversation (its turns older than the window's tail, and its
                     summaries)

The policy only narrows: the database wall decides what a row is visible to, so recall never crosses
a user or a tenant whatever the policy says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..backend.base import RecallFilters, Session
from ..claims.guidelines import current_guidelines, guideline_json
from ..errors import InvalidArgument
from ..identity import Identity

__all__ = ["GUIDELINE_KEY", "POLICIES", "ROW_ID", "RecallPolicy", "current_policy"]

GUIDELINE_KEY = "conversation_recall"
#: the guideline's row id, the same in every tenant (as the context budget's)
ROW_ID = "conversation_recall_policy"
SAME_USER_AGENT, SAME_USER, THIS_THREAD = "same_user_agent", "same_user", "this_thread"
POLICIES = (SAME_USER_AGENT, SAME_USER, THIS_THREAD)
#: no conversation has this id: this_thread's filter for a caller that has not said anything yet
_NONE = "-"


@dataclass(frozen=True)
class RecallPolicy:
    policy: str = SAME_USER_AGENT
    #: the guideline version that holds it; 0 when the tenant has none (the default)
    version: int = 0

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, version: int = 0) -> RecallPolicy:
        data = dict(data or {})
        unknown = sorted(set(data) - {"policy"})
        if unknown:
            raise InvalidArgument(f"the recall policy has no key {unknown[0]!r}", field=unknown[0])
        policy = data.get("policy", SAME_USER_AGENT)
        if policy not in POLICIES:
            raise InvalidArgument(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}", field="policy")
        return cls(policy, version)

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy}

    def filters(self, identity: Identity, conversation_id: str | None) -> RecallFilters:
        """The narrowing this policy adds to the wall for this caller, whose conversation is `conversation_id`."""
        if self.policy == THIS_THREAD:
            return RecallFilters(identity.user, identity.agent, conversation=conversation_id or _NONE)
        return RecallFilters(identity.user, identity.agent, any_agent=self.policy == SAME_USER)


def current_policy(session: Session, now: str) -> RecallPolicy:
    """The tenant's recall policy in force at `now` for the session's caller (the default without one)."""
    row = current_guidelines(session, now, GUIDELINE_KEY).get(GUIDELINE_KEY)
    return RecallPolicy.from_json(guideline_json(row), int(row["version"]) if row else 0)
