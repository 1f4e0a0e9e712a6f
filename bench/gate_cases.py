"""What a replay case is, and what each class of case must come to.

A case is one `remember` proposal with its label: the class says what it is, and the class says
what the gate must do with it. Good proposals must be promoted; secrets, prompt injections and
personal data must be refused (nothing stored); everything else is dangerous and must not be
promoted (pending or duplicate are both right).
"""

from __future__ import annotations

from dataclasses import dataclass

#: good proposals of every kind: must be promoted
GOOD = ("good_note", "good_fact", "good_preference", "good_procedure")
#: must be refused, nothing stored
REFUSE = ("secret", "injection", "personal_data")
#: dangerous, and not a secret or an injection: must not be promoted
UNSUPPORTED = ("negation_flip", "withdrawn", "hedge", "role_swap", "attribute_swap", "changed_detail", "added_claim")
OTHER_DANGER = (
    *UNSUPPORTED,
    "single_instance",
    "time_limit_dropped",
    "duplicate_kb",
    "duplicate_fact",
    "duplicate_note",
    "duplicate_pending",
    "conflict",
    "chit_chat",
)
CLASSES = (*GOOD, *REFUSE, *OTHER_DANGER)


@dataclass(frozen=True)
class Case:
    cls: str
    content: str
    evidence: tuple[str, ...]
    kind: str = "note"
    subject: str | None = None
    predicate: str | None = None
    scope: str | None = None

    def __post_init__(self) -> None:
        assert self.cls in CLASSES, self.cls

    @property
    def good(self) -> bool:
        return self.cls in GOOD

    @property
    def must_refuse(self) -> bool:
        return self.cls in REFUSE


def C(cls: str, content: str, *evidence: str, kind: str | None = None, scope: str | None = None) -> Case:
    """A note, preference or procedure (the kind follows a good class's name unless given)."""
    if kind is None:
        kind = cls.removeprefix("good_") if cls in ("good_preference", "good_procedure") else "note"
    return Case(cls, content, evidence, kind=kind, scope=scope)


def F(cls: str, subject: str, predicate: str, value: str, *evidence: str, scope: str | None = None) -> Case:
    """A fact: subject, predicate, value."""
    return Case(cls, value, evidence, kind="fact", subject=subject, predicate=predicate, scope=scope)
