"""Typed assessments: three questions about a candidate, each answered as a probability.

An Assessor answers `supported`, `scope_fits` and `conflict` for one candidate and its evidence;
the gate, not the assessor, decides from the answers and the tenant's thresholds. An answer of
None means no answer (a timeout, a failure, unreadable output): the candidate waits (pending),
it is never promoted. Three ship:

- RulesAssessor (default): deterministic, no model. supported: the share of the candidate's
  significant words and every number found in the evidence text; scope_fits: low when the
  candidate generalises (always, every, any, ...) where the evidence does not; conflict: high when
  it negates where the evidence does not.
- SamplingAssessor: the connected host's own model over MCP sampling, asked for a JSON answer; a
  client without sampling gets the rules, and the decision says so.
- HttpAssessor: posts the candidate, its evidence and the questions to a configured endpoint.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

__all__ = [
    "QUESTIONS",
    "QUESTION_VERSION",
    "AssessmentRequest",
    "Assessor",
    "Assessors",
    "HttpAssessor",
    "RulesAssessor",
    "Sampler",
    "SamplingAssessor",
    "Verdicts",
]

#: raise with any change to the question texts: every assessment row records the version it answered
QUESTION_VERSION = 1
QUESTIONS = {
    "supported": "Is every claim in the candidate explicitly supported by the evidence text?",
    "scope_fits": "Does the candidate keep the evidence's limits (its customer, transaction, time, "
    "one-time conditions) and claim nothing more general than the evidence shows?",
    "conflict": "Does the candidate contradict the evidence, a guideline or a current fact?",
}

#: (system prompt, user message) -> the model's text, or None when the client cannot sample
Sampler = Callable[[str, str], str]


@dataclass(frozen=True)
class AssessmentRequest:
    kind: str
    content: str
    scope: str
    evidence: tuple[str, ...]  # the evidence rows' text, in the order the caller named them
    subject: str | None = None
    predicate: str | None = None
    current_value: str | None = None


@dataclass(frozen=True)
class Verdicts:
    """The answers (None: no answer), who gave them, the time each took, and a note for the decision."""

    probabilities: dict[str, float | None]
    assessor: str
    latency_ms: dict[str, float] = field(default_factory=dict)
    note: str | None = None


class Assessor(Protocol):
    name: str

    def assess(self, request: AssessmentRequest) -> Verdicts: ...


_WORD = re.compile(r"\d+(?:[.,]\d+)*%?|[^\W\d_]+", re.UNICODE)
_NUMBER = re.compile(r"^\d")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "by",
        "for",
        "from",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "she",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "will",
        "with",
        "you",
        "your",
        "which",
        "who",
        "what",
        "when",
        "where",
        "than",
        "then",
        "there",
        "these",
        "those",
        "also",
        "into",
        "about",
        "after",
        "before",
        "over",
        "under",
        "more",
        "most",
        "very",
        "just",
        "can",
        "could",
        "should",
        "would",
        "may",
        "might",
        "must",
        "shall",
        "do",
        "does",
        "did",
        "so",
        "such",
        "only",
        "other",
        "same",
        "each",
        "per",
        "via",
    ]
)
#: words that widen a claim past one case: "this customer is always eligible"
_GENERAL = frozenset(
    [
        "always",
        "never",
        "all",
        "every",
        "everyone",
        "everybody",
        "everything",
        "any",
        "anyone",
        "anybody",
        "anything",
        "forever",
        "permanently",
        "whenever",
        "invariably",
        "universally",
        "generally",
    ]
)
_NEGATION = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "cannot",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "don't",
        "doesn't",
        "didn't",
        "won't",
    ]
)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _stem(word: str) -> str:
    return word if _NUMBER.match(word) else word[:6]


class RulesAssessor:
    """Deterministic answers from the words of the candidate and its evidence (no model)."""

    name = "rules"

    def assess(self, request: AssessmentRequest) -> Verdicts:
        timings: dict[str, float] = {}
        probabilities: dict[str, float | None] = {}
        evidence_words = [w for text in request.evidence for w in _words(text)]
        have = {_stem(w) for w in evidence_words}
        claim = _words(request.content)
        for question, answer in (
            ("supported", lambda: self._supported(claim, have)),
            ("scope_fits", lambda: self._scope_fits(claim, set(evidence_words))),
            ("conflict", lambda: self._conflict(claim, set(evidence_words))),
        ):
            t0 = time.perf_counter()
            probabilities[question] = answer()
            timings[question] = (time.perf_counter() - t0) * 1000
        return Verdicts(probabilities, self.name, timings)

    @staticmethod
    def _supported(claim: list[str], have: set[str]) -> float:
        significant = [w for w in claim if w not in _STOP and w not in _GENERAL and (len(w) > 2 or _NUMBER.match(w))]
        if not significant:
            return 0.0
        found = sum(1 for w in significant if _stem(w) in have)
        share = found / len(significant)
        numbers = [w for w in significant if _NUMBER.match(w)]
        if any(_stem(n) not in have for n in numbers):  # a number the evidence does not hold is never supported
            share = min(share, 0.5)
        return round(share, 3)

    @staticmethod
    def _scope_fits(claim: list[str], evidence: set[str]) -> float:
        widened = [w for w in claim if w in _GENERAL and w not in evidence]
        return 0.3 if widened else 0.97

    @staticmethod
    def _conflict(claim: list[str], evidence: set[str]) -> float:
        negated = [w for w in claim if w in _NEGATION and w not in evidence]
        return 0.6 if negated else 0.02


def _prompt(request: AssessmentRequest) -> tuple[str, str]:
    system = (
        "You assess whether a proposed memory may be kept. Answer with one JSON object and nothing else: "
        '{"supported": p, "scope_fits": p, "conflict": p}, each p a probability from 0 to 1. '
        + " ".join(f"{q}: {text}" for q, text in QUESTIONS.items())
    )
    claim = request.content if request.kind != "fact" else f"{request.subject} {request.predicate} = {request.content}"
    lines = [f"Candidate ({request.kind}, scope {request.scope}): {claim}"]
    if request.current_value is not None:
        lines.append(f"Current value of that fact: {request.current_value}")
    lines += [f"Evidence {i + 1}: {text}" for i, text in enumerate(request.evidence)]
    return system, "\n".join(lines)


def parse_answer(text: str) -> dict[str, float | None]:
    """The three probabilities of a JSON answer; None for each one missing or out of range."""
    match = re.search(r"\{.*\}", text or "", re.DOTALL)
    try:
        data = json.loads(match.group(0)) if match else {}
    except ValueError:
        data = {}
    out: dict[str, float | None] = {}
    for q in QUESTIONS:
        v = data.get(q) if isinstance(data, dict) else None
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 1.0
        out[q] = float(v) if ok and v is not None else None
    return out


class SamplingAssessor:
    """The host's own model, through MCP sampling; the rules when the client cannot sample."""

    name = "sampling"

    def __init__(self, sampler: Sampler | None, fallback: RulesAssessor | None = None):
        self.sampler = sampler
        self.fallback = fallback or RulesAssessor()

    def assess(self, request: AssessmentRequest) -> Verdicts:
        if self.sampler is None:
            got = self.fallback.assess(request)
            return Verdicts(
                got.probabilities,
                "rules",
                got.latency_ms,
                note="the client offers no sampling on this connection, so the rules assessor answered",
            )
        t0 = time.perf_counter()
        try:
            text = self.sampler(*_prompt(request))
        except Exception as exc:  # the host refused or failed: no answer, never a promotion
            return _no_answer(self.name, t0, f"sampling failed: {type(exc).__name__}")
        elapsed = (time.perf_counter() - t0) * 1000
        return Verdicts(parse_answer(text), self.name, {q: elapsed for q in QUESTIONS})


class HttpAssessor:
    """POSTs {"candidate", "evidence", "questions", "question_version"} as JSON to `url`; expects the three
    probabilities back. A timeout, an HTTP error or an unreadable answer is no answer."""

    name = "http"

    def __init__(self, url: str, timeout_s: float = 5.0):
        self.url = url
        self.timeout_s = timeout_s

    def assess(self, request: AssessmentRequest) -> Verdicts:
        body = json.dumps(
            {
                "candidate": {
                    "kind": request.kind,
                    "content": request.content,
                    "scope": request.scope,
                    "subject": request.subject,
                    "predicate": request.predicate,
                    "current_value": request.current_value,
                },
                "evidence": list(request.evidence),
                "questions": QUESTIONS,
                "question_version": QUESTION_VERSION,
            }
        ).encode("utf-8")
        http = urllib.request.Request(self.url, data=body, headers={"Content-Type": "application/json"}, method="POST")
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(http, timeout=self.timeout_s) as response:
                text = response.read(65_536).decode("utf-8", "replace")
        except Exception as exc:
            return _no_answer(self.name, t0, f"assessment service unavailable: {type(exc).__name__}")
        elapsed = (time.perf_counter() - t0) * 1000
        return Verdicts(parse_answer(text), self.name, {q: elapsed for q in QUESTIONS})


def _no_answer(name: str, t0: float, note: str) -> Verdicts:
    elapsed = (time.perf_counter() - t0) * 1000
    return Verdicts({q: None for q in QUESTIONS}, name, {q: elapsed for q in QUESTIONS}, note=note)


@dataclass(frozen=True)
class Assessors:
    """Which assessor a policy names, built for this call (the sampler is the request's, if any)."""

    sampler: Sampler | None = None

    def pick(self, name: str, http_url: str | None, http_timeout_s: float) -> Assessor:
        if name == "sampling":
            return SamplingAssessor(self.sampler)
        if name == "http" and http_url:
            return HttpAssessor(http_url, http_timeout_s)
        return RulesAssessor()
