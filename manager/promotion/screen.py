"""The checks that refuse a proposal outright, before any evidence is weighed: secrets, text addressed to a
model or an agent, and small talk.

- **Secrets** are found by Yelp's detect-secrets (its plugins run on the text itself, offline: no
  verification request is ever made, no file is read): known key formats (AWS, GitHub, Slack,
  Stripe, OpenAI, JWTs, private keys, credentials in URLs, ...), high-entropy strings, and
  passwords. detect-secrets reads "key: value" lines, so prose is handed to it in that shape first
  ("the password is X" becomes "password: X"), and a keyword's value counts only when it looks
  like a credential (not "12 characters" or "rotated monthly").
- **Injections**: instructions to override a model's instructions ("ignore previous ..."), text
  addressed to an AI, assistant or agent, role labels and chat-template markers ("SYSTEM:",
  "[INST]", "<|im_start|>"), persona switches ("you are now ..."), and tool-call-shaped text (a JSON
  object naming a tool or its arguments, markup like <tool_call>, "call X with {...}").
- **Small talk**: a proposal that claims nothing once greetings, thanks and the user's name are set
  aside, or that holds only for today.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

from .text import STOP

__all__ = ["injection", "secret", "small_talk"]

#: detect-secrets plugins run on a proposal (every one but public IPs, which are no credential, and the two
#: entropy plugins, whose limits are applied here to whole words)
_SKIP_PLUGINS = {"IPPublicDetector", "Base64HighEntropyString", "HexHighEntropyString"}
#: detect-secrets' own limit for base64-like strings (bits per character), applied to words of 20 or more
_ENTROPY_LIMIT = 4.5
_LONG_WORD = re.compile(r"[A-Za-z0-9+/=_\-.]{20,}")
#: prose to detect-secrets' "key: value": "the password is X", "password X", "login X / Y"
_CREDENTIAL_WORDS = r"passwords?|passwd|pwd|passphrase|passcode|secret|api[ _-]?key|access[ _-]?key|credentials?|token"
_PROSE_KEY = re.compile(
    rf"\b({_CREDENTIAL_WORDS})\b(?:\s+(?:is|was|are|=|:|of|for\s+\S+\s+is))?\s*[:=]?\s*(\S+(?:\s*/\s*\S+)?)",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _plugins():
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import configure_settings_from_baseline

    # once per process: no filter that verifies a secret against its service, so nothing leaves this process
    configure_settings_from_baseline({"plugins_used": [], "filters_used": []})
    return [cls() for cls in get_mapping_from_secret_type_to_class().values() if cls.__name__ not in _SKIP_PLUGINS]


def secret(*texts: str | None) -> str | None:
    """What kind of secret the texts hold (detect-secrets' name for it), or None."""
    plugins = _plugins()
    for text in (t for t in texts if t):
        candidates = [text, *_as_key_values(text)]
        for plugin in plugins:
            for line in candidates:
                for found in plugin.analyze_line(filename="memory.yaml", line=line):
                    if found.type != "Secret Keyword" or _credential_like(str(found.secret_value or "")):
                        return str(found.type)
        for word in _LONG_WORD.findall(text):
            if _entropy(word) > _ENTROPY_LIMIT:
                return "High Entropy String"
    return None


def _as_key_values(text: str) -> list[str]:
    return [f"password: {m.group(2)}" for m in _PROSE_KEY.finditer(text)]


def _credential_like(value: str) -> bool:
    """A password-shaped value: long enough, not a plain word, number or phrase of plain words."""
    token = value.strip("'\".,;:!?()").split(" / ")[-1].split()[0] if value.strip() else ""
    if len(token) < 6 or token.isdigit():
        return False
    letters = any(c.isalpha() for c in token)
    digits = any(c.isdigit() for c in token)
    symbols = any(not c.isalnum() and c not in "-_" for c in token)
    return letters and (digits or symbols)  # hunter2, Winter2026!, pa$$word; not "rotated" or "word-word"


def _entropy(word: str) -> float:
    counts = Counter(word)
    return -sum(n / len(word) * math.log2(n / len(word)) for n in counts.values())


_AI = r"(?:ai|a\.i\.|llms?|language models?|assistants?|agents?|chatbots?|bots?|models?|gpts?)"
_INJECTIONS = [
    (
        "override",
        re.compile(
            r"\b(?:ignore|disregard|forget|override|bypass)\b[^.;\n]{0,40}?\b(?:previous|prior|earlier|above|"
            r"preceding|all|any|your|the|these|those|other)\b[^.;\n]{0,30}?\b(?:instructions?|prompts?|rules|"
            r"directives|guidelines|guardrails|messages|context|policies|system)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "addressed_to_ai",
        re.compile(
            rf"\b(?:note|message|instructions?|attention|memo|reminder|hey|hello|hi|dear|warning)\s*(?:to|for)?\s*"
            rf"(?:any|all|every|each|the|an?)?\s*{_AI}\b(?!\s+(?:team|group|lab|product|vendor))"
            rf"|\b(?:to|for)\s+(?:any|all|every|each)\s+{_AI}\b"
            rf"|\bif you are an?\s+{_AI}\b"
            rf"|\b{_AI}\s+(?:reading|processing|summari[sz]ing|parsing|ingesting|seeing)\s+(?:this|these)\b"
            rf"|^\W*(?:assistant|agent|ai)\s*[,:]\s",
            re.IGNORECASE | re.MULTILINE,
        ),
    ),
    (
        "role_marker",
        re.compile(
            r"^\W*(?:system|developer|assistant|tool)\s*:"
            r"|\[/?(?:system|inst|sys|assistant|developer)\]"
            r"|<\|?/?(?:system|im_start|im_end|assistant|user|endoftext)\|?>"
            r"|<</?sys>>|#{2,}\s*(?:system|instruction)"
            r"|\b(?:begin|end|new|updated|override)\s+(?:system\s+)?(?:prompt|instructions)\b"
            r"|\bsystem prompt\b",
            re.IGNORECASE | re.MULTILINE,
        ),
    ),
    (
        "persona_switch",
        re.compile(
            r"\byou are now\b|\b(?:developer|god|dan|jailbreak|unrestricted|admin) mode\b"
            r"|\bpretend (?:to be|you are)\b|\bact as (?:an? |the )?(?:admin|administrator|root|system|developer)\b"
            r"|\bfrom now on,? you (?:must|will|shall|should|are|have to)\b"
            r"|\bdo not (?:tell|mention|reveal|inform)\b[^.;\n]{0,30}\b(?:the )?(?:user|human|operator)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "tool_call",
        re.compile(
            r"[{,]\s*[\"'](?:tool|tool_name|tool_calls|function|function_call|arguments|args|parameters|"
            r"recipient_name)[\"']\s*:"
            r"|</?\s*(?:tool_call|tool_use|function_calls?|invoke|antml:[a-z_]+|tool)\b[^>]{0,80}>"
            r"|\b(?:call|invoke|run|execute|use)\s+(?:the\s+)?[`'\"]?[a-z_][a-z0-9_]*[`'\"]?(?:\s+(?:tool|function))?"
            r"\s+with\s*[{(]"
            r"|\b[a-z]+_[a-z_]+\s*\(\s*[a-z_]+\s*=",
            re.IGNORECASE,
        ),
    ),
]


@lru_cache(maxsize=4096)
def injection(text: str | None) -> str | None:
    """The kind of text addressed to a model or an agent that `text` holds, or None (a knowledge-base passage
    read for many proposals is read once)."""
    if not text:
        return None
    for name, pattern in _INJECTIONS:
        if pattern.search(text):
            return name
    return None


#: words that carry no claim: greetings, thanks, acknowledgement, how one feels about the talk itself
_SOCIAL = frozenset(
    [
        "thanks",
        "thank",
        "thanked",
        "thanking",
        "hello",
        "hi",
        "hey",
        "morning",
        "evening",
        "afternoon",
        "night",
        "good",
        "great",
        "nice",
        "lovely",
        "cool",
        "ok",
        "okay",
        "awesome",
        "perfect",
        "welcome",
        "cheers",
        "bye",
        "goodbye",
        "haha",
        "lol",
        "glad",
        "happy",
        "pleased",
        "helpful",
        "help",
        "helped",
        "appreciate",
        "appreciated",
        "sorry",
        "wow",
        "yes",
        "yeah",
        "yep",
        "sure",
        "fine",
        "really",
        "much",
        "lot",
        "answer",
        "answers",
        "reply",
        "said",
        "say",
        "says",
        "told",
        "going",
        "how's",
        "hows",
        "was",
    ]
)
_EPHEMERAL = re.compile(r"\b(today|tonight|this morning|this afternoon|this evening|right now)\b", re.IGNORECASE)


def small_talk(content: str, user: str | None) -> bool:
    """Whether a proposal claims nothing: only greetings, thanks and the like, or only about today."""
    words = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]*", content)]
    ignore = {"user", *(f"{user.lower()}{s}" for s in ("", "'s") if user)}
    claims = [w for w in words if w not in STOP and w not in _SOCIAL and w not in ignore]
    return len(claims) == 0 or bool(_EPHEMERAL.search(content))
