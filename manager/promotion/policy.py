"""The tenant's promotion policy: a guideline (`promotion_policy`), typed here, with defaults.

A guideline, like the context budget: versioned, so every candidate and assessment records the
policy version that decided it (0: the defaults, no row), and written by the operator
(`memgate candidates policy`) as a policy update. Keys of its content_json:

    mode            auto | review | shadow   (auto: the gate promotes; review: everything that
                    passes waits for an operator; shadow: decide and record, promote nothing)
    assessor        rules | sampling | http
    thresholds      {"supported": 0.90, "scope_fits": 0.90, "conflict": 0.10}
    deny_patterns   {"name": "regex", ...}: added to the defaults (phone, email, card); a name
                    set to null drops that default
    rate_per_hour   proposals one caller (user and agent) may make in an hour
    http            {"url": "...", "timeout_s": 5}: the assessment service of `assessor = "http"`
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..backend.base import Row
from ..claims.guidelines import current_guidelines, guideline_json
from ..errors import InvalidArgument

__all__ = ["DEFAULT_DENY_PATTERNS", "MODES", "POLICY_KEY", "PromotionPolicy"]

POLICY_KEY = "promotion_policy"
MODES = ("auto", "review", "shadow")
ASSESSORS = ("rules", "sampling", "http")
QUESTIONS = ("supported", "scope_fits", "conflict")
DEFAULT_THRESHOLDS = {"supported": 0.90, "scope_fits": 0.90, "conflict": 0.10}

#: what is never recorded (the seed's "never record a phone number or home address"): a phone
#: number in its usual written forms (not a date, a version or a decimal), an e-mail address, a
#: payment card number (13 to 19 digits, spaces or dashes between)
DEFAULT_DENY_PATTERNS = {
    "phone": r"(?<![\w.])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?|\d{2,4}[\s.-])\d{3,4}[\s.-]\d{3,4}(?![\w.])",
    "email": r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}",
    "card": r"(?<![\d.])(?:\d[ -]?){12,18}\d(?!\d)",
}


@dataclass(frozen=True)
class PromotionPolicy:
    mode: str = "auto"
    assessor: str = "rules"
    thresholds: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_THRESHOLDS))
    deny_patterns: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_DENY_PATTERNS))
    rate_per_hour: int = 60
    http_url: str | None = None
    http_timeout_s: float = 5.0
    #: the guideline version that holds it; 0 when the tenant has none (the defaults)
    version: int = 0

    @classmethod
    def from_json(cls, data: dict[str, Any] | None, version: int = 0) -> PromotionPolicy:
        """The policy a guideline's content_json states, strictly: an unknown key or a bad value is named."""
        data = dict(data or {})
        unknown = sorted(set(data) - {"mode", "assessor", "thresholds", "deny_patterns", "rate_per_hour", "http"})
        if unknown:
            raise InvalidArgument(f"promotion policy has no key {unknown[0]!r}", field=unknown[0])
        mode = data.get("mode", "auto")
        if mode not in MODES:
            raise InvalidArgument(f"promotion mode must be one of {', '.join(MODES)}, got {mode!r}", field="mode")
        assessor = data.get("assessor", "rules")
        if assessor not in ASSESSORS:
            raise InvalidArgument(f"assessor must be one of {', '.join(ASSESSORS)}, got {assessor!r}", field="assessor")
        thresholds = dict(DEFAULT_THRESHOLDS)
        for q, v in (data.get("thresholds") or {}).items():
            if q not in QUESTIONS:
                raise InvalidArgument(f"thresholds has no question {q!r}", field="thresholds")
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                raise InvalidArgument(f"threshold {q} must be a number from 0 to 1, got {v!r}", field="thresholds")
            thresholds[q] = float(v)
        patterns = dict(DEFAULT_DENY_PATTERNS)
        for name, pattern in (data.get("deny_patterns") or {}).items():
            if pattern is None:
                patterns.pop(name, None)
                continue
            try:
                re.compile(pattern)
            except (re.error, TypeError) as exc:
                raise InvalidArgument(f"deny pattern {name!r} is no regular expression: {exc}", field="deny_patterns")
            patterns[name] = pattern
        rate = data.get("rate_per_hour", 60)
        if isinstance(rate, bool) or not isinstance(rate, int) or rate < 1:
            raise InvalidArgument(f"rate_per_hour must be a whole number >= 1, got {rate!r}", field="rate_per_hour")
        http = data.get("http") or {}
        url = http.get("url")
        if assessor == "http" and not (isinstance(url, str) and url.startswith(("http://", "https://"))):
            raise InvalidArgument('assessor "http" needs http.url (http:// or https://)', field="http")
        return cls(
            mode=mode,
            assessor=assessor,
            thresholds=thresholds,
            deny_patterns=patterns,
            rate_per_hour=rate,
            http_url=url,
            http_timeout_s=float(http.get("timeout_s", 5.0)),
            version=version,
        )

    @classmethod
    def from_guideline(cls, row: Row | None) -> PromotionPolicy:
        return cls.from_json(guideline_json(row), int(row["version"]) if row else 0)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "mode": self.mode,
            "assessor": self.assessor,
            "thresholds": self.thresholds,
            "rate_per_hour": self.rate_per_hour,
            "deny_patterns": {
                **{k: v for k, v in self.deny_patterns.items() if DEFAULT_DENY_PATTERNS.get(k) != v},
                **{k: None for k in DEFAULT_DENY_PATTERNS if k not in self.deny_patterns},
            },
        }
        if self.http_url:
            data["http"] = {"url": self.http_url, "timeout_s": self.http_timeout_s}
        return data

    def passes(self, question: str, probability: float | None) -> bool:
        """Whether an answer clears its threshold: conflict must be at most it, the others at least."""
        if probability is None:
            return False
        limit = self.thresholds[question]
        return probability <= limit if question == "conflict" else probability >= limit

    def denied(self, text: str) -> str | None:
        """The name of the first deny pattern `text` matches, or None."""
        for name, pattern in sorted(self.deny_patterns.items()):
            if re.search(pattern, text):
                return name
        return None


def read_policy(session, now: str) -> PromotionPolicy:
    """The caller's tenant policy in force now (defaults when there is none)."""
    return PromotionPolicy.from_guideline(current_guidelines(session, now, POLICY_KEY).get(POLICY_KEY))
