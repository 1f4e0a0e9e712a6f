"""The `http` assessor: a model behind an OpenAI-compatible chat completions endpoint.

What Ollama (`http://127.0.0.1:11434/v1`), vLLM and llama.cpp's server speak: one POST to
`<url>/chat/completions` (the policy's `http.url`, with or without that path) with

    {"model": http.model, "temperature": 0, "max_tokens": 200,
     "messages": [{"role": "system", "content": PROMPT}, {"role": "user", "content": <candidate and evidence>}],
     "response_format": {"type": "json_schema",
                         "json_schema": {"name": "promotion_assessment", "strict": true, "schema": ANSWER_SCHEMA}}}

and the answer is `choices[0].message.content`, one JSON object with the three probabilities.
A bearer key, when the endpoint needs one, is read from the environment variable the policy names
(`http.api_key_env`), never stored in the database. A timeout, an HTTP error or an unreadable answer
is no answer: the candidate waits, it is never promoted.

Assessors, here because it builds every assessor, picks the one a policy names, behind the code checks.
"""

from __future__ import annotations

import json
import os
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .assess import (
    ANSWER_SCHEMA,
    QUESTIONS,
    AssessmentRequest,
    Assessor,
    Checked,
    RulesAssessor,
    Sampler,
    SamplingAssessor,
    Verdicts,
    _no_answer,
    _prompt,
    parse_answer,
)

if TYPE_CHECKING:
    from ..kb.embed import Embedder

__all__ = ["Assessors", "HttpAssessor", "chat_request", "endpoint"]

#: the most tokens the model may spend on one answer (a JSON object of three numbers)
MAX_TOKENS = 200
#: the most bytes of an answer read
MAX_ANSWER_BYTES = 65_536


def endpoint(url: str) -> str:
    """The chat completions URL of a base URL (`.../v1`) or of the endpoint itself."""
    url = url.rstrip("/")
    return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


def chat_request(request: AssessmentRequest, model: str) -> dict:
    system, user = _prompt(request)
    return {
        "model": model,
        "temperature": 0,
        "max_tokens": MAX_TOKENS,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "promotion_assessment", "strict": True, "schema": ANSWER_SCHEMA},
        },
    }


class HttpAssessor:
    name = "http"

    def __init__(self, url: str, model: str, timeout_s: float = 10.0, key_env: str | None = None):
        self.url = endpoint(url)
        self.model = model
        self.timeout_s = timeout_s
        self.key_env = key_env

    def assess(self, request: AssessmentRequest) -> Verdicts:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.key_env) if self.key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        body = json.dumps(chat_request(request, self.model)).encode("utf-8")
        http = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(http, timeout=self.timeout_s) as response:
                raw = response.read(MAX_ANSWER_BYTES).decode("utf-8", "replace")
        except Exception as exc:
            return _no_answer(self.name, t0, f"assessment service unavailable: {type(exc).__name__}")
        elapsed = (time.perf_counter() - t0) * 1000
        try:
            content = json.loads(raw)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return _no_answer(self.name, t0, "the assessment service's answer is no chat completion")
        return Verdicts(
            parse_answer(content if isinstance(content, str) else ""), self.name, dict.fromkeys(QUESTIONS, elapsed)
        )


@dataclass(frozen=True)
class Assessors:
    """Which assessor a policy names, built for this call (the sampler is the request's, if any), behind the
    code checks."""

    sampler: Sampler | None = None
    embedder: Callable[[], Embedder] | None = None

    def pick(self, policy) -> Assessor:
        rules = RulesAssessor(self.embedder, policy.thresholds["supported"])
        if policy.assessor == "sampling":
            return Checked(SamplingAssessor(self.sampler, rules), rules)
        if policy.assessor == "http" and policy.http_url:
            return Checked(
                HttpAssessor(policy.http_url, policy.http_model, policy.http_timeout_s, policy.http_key_env), rules
            )
        return rules
