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
    rate_per_hour   decided proposals one caller (its principal) may make in an hour (20: a few an
                    hour, not a flood; a refusal by the cap is said as such and decides nothing)
    http            {"url": "http://127.0.0.1:11434/v1", "model": "qwen2.5:7b", "timeout_s": 10,
                    "api_key_env": "MEMGATE_ASSESSOR_KEY"}: the OpenAI-compatible chat completions
                    endpoint of `assessor = "http"` (assess_http.py); the key is read from that
                    environment variable, never stored
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
#: decided proposals per caller per hour: an agent remembers a few things an hour, not a flood
DEFAULT_RATE = 20
HTTP_KEYS = {"url", "model", "timeout_s", "api_key_env"}

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
    rate_per_hour: int = DEFAULT_RATE
    http_url: str | None = None
    http_model: str = "default"
    http_timeout_s: float = 10.0
    http_key_env: str | None = None
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
        rate = data.get("rate_per_hour", DEFAULT_RATE)
        if isinstance(rate, bool) or not isinstance(rate, int) or rate < 1:
            raise InvalidArgument(f"rate_per_hour must be a whole number >= 1, got {rate!r}", field="rate_per_hour")
        http = data.get("http") or {}
        if not isinstance(http, dict) or set(http) - HTTP_KEYS:
            raise InvalidArgument(f"http must be an object with the keys {sorted(HTTP_KEYS)}", field="http")
        url = http.get("url")
        if assessor == "http" and not (isinstance(url, str) and url.startswith(("http://", "https://"))):
            raise InvalidArgument(
                'assessor "http" needs http.url, an OpenAI-compatible endpoint (http:// or https://, e.g. '
                '"http://127.0.0.1:11434/v1")',
                field="http",
            )
        timeout = http.get("timeout_s", 10.0)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 120:
            raise InvalidArgument(
                f"http.timeout_s must be a number of seconds from 0 to 120, got {timeout!r}", field="http"
            )
        for key in ("model", "api_key_env"):
            if key in http and not (isinstance(http[key], str) and http[key].strip()):
                raise InvalidArgument(f"http.{key} must be a non-empty string", field="http")
        return cls(
            mode=mode,
            assessor=assessor,
            thresholds=thresholds,
            deny_patterns=patterns,
            rate_per_hour=rate,
            http_url=url,
            http_model=http.get("model", "default"),
            http_timeout_s=float(timeout),
            http_key_env=http.get("api_key_env"),
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
            data["http"] = {"url": self.http_url, "model": self.http_model, "timeout_s": self.http_timeout_s}
            if self.http_key_env:
                data["http"]["api_key_env"] = self.http_key_env
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
