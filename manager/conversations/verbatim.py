"""What a summary must keep exactly as written: identifiers, amounts and dates.

The compaction rule "summarise the prose, keep case ids, timestamps, amounts and pointers
verbatim" needs a definition a machine can check: a term is kept verbatim when it appears in the
summary character for character. The terms are

- anything with a digit in it, joined by the characters identifiers use (`INV-2024-0042`,
  `order#4711`, `v2.3.1`, `2023-05-08`, `14:30`, `1,250.00`, `ent_acme_helios_v2`),
- an amount with its currency sign or code (`$1,250.00`, `€30`, `120 EUR`),
- a date written in words (`8 May 2023`, `May 8, 2023`),
- an identifier without digits but with an underscore, or a dotted name (`lru_cache`, `acme.eu`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["missing_from", "verbatim_terms"]

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_TERM = re.compile(
    "|".join(
        (
            rf"\b\d{{1,2}}(?:st|nd|rd|th)? {_MONTH},? \d{{4}}\b",  # 8 May 2023
            rf"\b{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}\b",  # May 8, 2023
            r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?",  # $1,250.00
            r"\b\d[\d,]*(?:\.\d+)? ?(?:USD|EUR|GBP|CHF|JPY)\b",  # 120 EUR
            r"[A-Za-z0-9#@][\w#@/:.+-]*\d[\w#@/:.+-]*",  # anything holding a digit
            r"\b[A-Za-z][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+\b",  # snake_case, dotted.names
        )
    )
)
_TRAILING = ".,;:!?)-'\""


def verbatim_terms(texts: Iterable[str]) -> list[str]:
    """The distinct terms of `texts` a summary must keep, in order of first appearance."""
    seen: dict[str, None] = {}
    for text in texts:
        for match in _TERM.finditer(text):
            term = match.group().rstrip(_TRAILING)
            if len(term) > 1 and not term.isalpha():
                seen.setdefault(term, None)
    return list(seen)


def missing_from(summary: str, terms: Iterable[str]) -> list[str]:
    """The terms `summary` does not hold character for character."""
    return [t for t in terms if t not in summary]
