"""Support without a model: strict where meaning can flip, lenient where it cannot.

`check` reads a claim against its evidence (text.py) and returns what it found, each finding
naming the question it answers and why:

- supported: every anchor of the claim (number, date, name, identifier) stands in the evidence,
  in a clause that says the same thing of it (for a fact: the value stands where the evidence
  names that predicate, not another attribute, and the subject is the evidence's); a figure the
  evidence withdraws supports nothing; a hedged statement ("I think", "probably") does not support
  a plain claim; the claim's words are the evidence's (lemmas, any order), the share that are not
  lowering the answer;
- conflict: a clause that says the opposite of the evidence clause it restates (a negation
  dropped or added);
- scope_fits: a claim drawn from one instance ("once", "as an exception", a ticket, "last Friday")
  that does not say so, a time limit of the evidence ("until 30 June", "for the next two weeks")
  the claim drops, or a generalising word (always, every, any) the evidence does not use.

When the evidence includes the user's own turn, "the user prefers X" is read as the user asking
for X: the user's name and the words of asking and preferring are not claims to support.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from .lexicon import ASKING, ATTRIBUTION, GENERAL, HEDGES, INSTANCE, RETRACTION, SUBJECT_TYPES
from .text import STOP, Clause, Sentence, Word, content_lemmas, lemmas, sentences, split_identifier

__all__ = ["Finding", "Reading", "Source", "check"]

_HEDGE_PHRASES = ("not sure", "hasn't decided", "has not decided", "not decided", "quote me", "not yet confirmed")
_INSTANCE_PHRASES = ("this one", "this time", "for this", "one case", "a single", "last monday", "last tuesday")
_INSTANCE_PATTERN = re.compile(
    r"\b(last (?:week|month|friday|thursday|saturday|sunday|night)|on \d{1,2} [A-Z][a-z]+|[A-Z]{2,}-\d+)\b"
)
#: a statement in force for a while: (marker, how many words after it name the limit)
_LIMITS = re.compile(
    r"\b(until|till|through|for the next|this (?:week|month|quarter|year|sprint)|during|while|temporarily|"
    r"for now|the week of|expires?|valid until|as long as|today|tonight|this morning|right now)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Source:
    """One evidence record as the checks read it."""

    text: str
    title: str | None = None
    user_turn: bool = False  # the caller's user's own words, in its own conversation


@dataclass(frozen=True)
class Finding:
    question: str  # supported | scope_fits | conflict
    rule: str  # what failed: number, negation, hedge, single_instance, ...
    reason: str


@dataclass
class Reading:
    findings: list[Finding] = field(default_factory=list)
    coverage: float = 0.0  # share of the claim's words the evidence holds, by lemma
    claim_text: str = ""
    best_evidence: str = ""  # the evidence sentence the claim restates most closely

    def failed(self, question: str) -> Finding | None:
        return next((f for f in self.findings if f.question == question), None)


def check(
    content: str,
    sources: list[Source],
    *,
    kind: str = "note",
    subject: str | None = None,
    predicate: str | None = None,
    user: str | None = None,
    asking: bool = False,
) -> Reading:
    """`asking`: the words of asking and preferring are no claims even without the user's turn (a preference
    compared with a remembered preference)."""
    reading = Reading()
    user_told = asking or any(s.user_turn for s in sources)
    ignore = {"user"}
    if user_told:  # "jane prefers X" of jane's own "please give me X": her name and the asking are no claims
        ignore |= ASKING
        if user:
            ignore |= {user.lower(), f"{user.lower()}'s"}
    evidence = [(s, sentences(s.text)) for s in sources]
    titles = " ".join(s.title or "" for s in sources)
    title_forms = content_lemmas(titles)
    all_sentences = [sent for _, ss in evidence for sent in ss]
    if not all_sentences:
        reading.findings.append(Finding("supported", "empty", "the evidence holds no text"))
        return reading
    if kind == "fact" and subject and predicate:
        claim = sentences(f"{content}")
        _fact(reading, content, subject, predicate, evidence, title_forms, ignore)
        claim_words = f"{' '.join(split_identifier(predicate))} {content}"
    else:
        claim = sentences(content)
        claim_words = content
        for sentence in claim:
            for clause in sentence.clauses:
                _clause(reading, clause, evidence, title_forms, ignore)
    reading.claim_text = claim_words
    # a fact's predicate is checked where its value stands (_fact); how much is the evidence's own words is
    # asked of the value
    _coverage(reading, sentences(content if kind == "fact" else claim_words), all_sentences, title_forms, ignore)
    _added(reading, sentences(claim_words), all_sentences, title_forms, ignore)
    _hedged(reading, claim, claim_words, all_sentences, ignore)
    _instance_and_limits(reading, claim_words, evidence, ignore)
    return reading


def _significant(words: list[Word], ignore: set[str]) -> list[Word]:
    return [w for w in words if w.content and w.low not in ignore and w.low not in GENERAL]


def _shared(a: list[Word], forms: AbstractSet[str]) -> int:
    return sum(1 for w in a if w.forms & forms)


def _aligned(clause: Clause, evidence, ignore: set[str]) -> tuple[Clause | None, Sentence | None, int]:
    """The evidence clause that restates `clause` best: the most content words in common."""
    words = _significant(clause.words, ignore)
    best, best_sentence, score = None, None, 0
    for _, ss in evidence:
        for sent in ss:
            for ec in sent.clauses:
                shared = _shared(words, ec.forms())
                if shared > score:
                    best, best_sentence, score = ec, sent, shared
    return best, best_sentence, score


def _clause(reading: Reading, clause: Clause, evidence, title_forms: set[str], ignore: set[str]) -> None:
    words = _significant(clause.words, ignore)
    if not words:
        return
    aligned, _sentence, shared = _aligned(clause, evidence, ignore)
    plain = [w for w in words if not w.anchor]
    for anchor in [w for w in words if w.anchor]:
        ok, why = _anchored(anchor, plain, evidence, title_forms)
        if not ok:
            reading.findings.append(Finding("supported", "anchor", why))
            return
    if aligned is None or shared < max(2, (len(words) + 1) // 2):
        return
    for sent in _sentences_sharing(words, evidence):
        for ec in sent.clauses:
            opposite = _opposite(clause, words, ec)
            if opposite:
                reading.findings.append(Finding("conflict", "negation", opposite))
                return


def _sentences_sharing(words: list[Word], evidence) -> list[Sentence]:
    need = min(len(words), max(2, (len(words) + 1) // 2))
    return [sent for _, ss in evidence for sent in ss if _shared(words, sent.forms()) >= need]


def _opposite(clause: Clause, words: list[Word], ec: Clause) -> str | None:
    """Why `clause` says the opposite of evidence clause `ec`, or None: one of them is negated, and the
    negation covers what they share, or denies the predicate of a clause that restates the other."""
    if clause.negated == ec.negated:
        return None
    forms = ec.forms()
    shared = [w for w in words if w.forms & forms]
    if not shared:
        return None
    negated_side, other = (ec, clause) if ec.negated else (clause, ec)
    other_forms = other.forms()
    covered = [w.low for w in negated_side.words if w.negated and w.content and w.forms & other_forms]
    if covered:
        return f"{covered[0]!r} is negated where the evidence says the opposite"
    if negated_side.denies_predicate and len(shared) >= max(2, (len(words) + 1) // 2):
        return (
            f"the evidence denies what {clause.text()[:60]!r} states"
            if ec.negated
            else (f"{clause.text()[:60]!r} denies what the evidence states")
        )
    return None


def _anchored(anchor: Word, plain: list[Word], evidence, title_forms: set[str]) -> tuple[bool, str]:
    """Whether an anchor stands in the evidence attached to what the claim says of it."""
    key = anchor.anchor or anchor.low
    number, direction = _split_anchor(key)
    places = []
    for source, ss in evidence:
        for sent in ss:
            retracted = any(w.low in RETRACTION for w in sent.words)
            for ec in sent.clauses:
                for w in ec.words:
                    if (w.anchor and _same_anchor(w.anchor, number, direction)) or (
                        not number[0].isdigit() and w.forms & anchor.forms
                    ):
                        places.append((ec, sent, source, retracted, w))
    if not places:
        if anchor.forms & title_forms and not anchor.low[0].isdigit():
            return True, ""
        return False, f"{anchor.text!r} does not stand in the evidence"
    if all(retracted for *_, retracted, _ in places) and anchor.low[0].isdigit():
        return False, f"the evidence withdraws {anchor.text!r}"
    if anchor.unit:  # a number counts the same thing: "35 pickers" is not "35 parcels"
        places = [p for p in places if not p[4].unit or p[4].unit & anchor.unit]
        if not places:
            return False, f"{anchor.text!r} stands in the evidence, but counts something else"
    # what the claim says of the anchor in the evidence's own words must be said of it there; words the
    # evidence never uses are the coverage's concern, not the attachment's
    everywhere = {f for _, ss in evidence for sent in ss for f in sent.forms()}
    plain = [w for w in plain if w.forms & everywhere]
    if not plain:
        return True, ""
    need = max(1, (len(plain) + 1) // 2)
    for ec, *_ in places:
        if _shared(plain, ec.forms()) >= need:
            return True, ""
    return False, f"{anchor.text!r} stands in the evidence, but said of something else"


def _split_anchor(key: str) -> tuple[str, str | None]:
    parts = key.split(" ", 1)
    return (parts[1], parts[0]) if len(parts) == 2 else (key, None)


def _same_anchor(other: str, number: str, direction: str | None) -> bool:
    n, d = _split_anchor(other)
    return n == number and (direction is None or d is None or d == direction)


def _fact(reading: Reading, value: str, subject: str, predicate: str, evidence, title_forms, ignore) -> None:
    """The value stands where the evidence names this predicate, of this subject."""
    value_words = [w for s in sentences(value) for w in s.words if w.content]
    anchors = [w for w in value_words if w.anchor]
    pred = [w for w in split_identifier(predicate) if w not in STOP]
    pred_forms = [lemmas(w) for w in pred]
    subject_words = [w for w in split_identifier(subject) if w not in SUBJECT_TYPES and w not in STOP]
    all_forms = {f for _, ss in evidence for sent in ss for f in sent.forms()} | title_forms
    if subject_words and not any(lemmas(w) & all_forms for w in subject_words) and not (ignore & set(subject_words)):
        reading.findings.append(Finding("supported", "subject", f"the evidence does not name {subject!r}"))
        return
    for anchor in anchors:
        number, direction = _split_anchor(anchor.anchor or anchor.low)
        if not any(
            _same_anchor(w.anchor, number, direction) for _, ss in evidence for s in ss for w in s.words if w.anchor
        ):
            reading.findings.append(Finding("supported", "value", f"{anchor.text!r} does not stand in the evidence"))
            return
    # the clause that holds the value (its first anchor, else its words) must name the predicate
    candidates = []
    for _, ss in evidence:
        for sent in ss:
            retracted = any(w.low in RETRACTION for w in sent.words)
            for ec in sent.clauses:
                forms = ec.forms()
                if anchors:
                    first = anchors[0]
                    n, d = _split_anchor(first.anchor or first.low)
                    if any(w.anchor and _same_anchor(w.anchor, n, d) for w in ec.words):
                        candidates.append((ec, retracted))
                elif value_words and _shared(value_words, forms) >= max(1, (len(value_words) + 1) // 2):
                    candidates.append((ec, retracted))
    if not candidates:
        reading.findings.append(Finding("supported", "value", f"the evidence does not state {value!r}"))
        return
    need = len(pred_forms) - 1 if len(pred_forms) >= 3 else len(pred_forms)
    named = [(ec, r) for ec, r in candidates if sum(1 for forms in pred_forms if forms & (ec.forms() | ignore)) >= need]
    if not named:
        reading.findings.append(
            Finding("supported", "attribute", f"{value!r} stands in the evidence, but not as {predicate}")
        )
        return
    if all(r for _, r in named) and anchors:
        reading.findings.append(Finding("supported", "anchor", f"the evidence withdraws {value!r}"))
        return
    for ec, _ in named:
        if ec.negated and not any(w.low in {"no", "not", "none", "never", "without"} for w in value_words):
            reading.findings.append(Finding("conflict", "negation", f"the evidence says {predicate} is not {value!r}"))
            return


def _coverage(reading: Reading, claim: list[Sentence], evidence: list[Sentence], title_forms, ignore) -> None:
    words = [w for s in claim for w in _significant(s.words, ignore)]
    have = {f for s in evidence for f in s.forms()} | title_forms
    if not words:
        reading.coverage = 1.0 if ignore else 0.0
        return
    found = sum(1 for w in words if w.forms & have)
    reading.coverage = round(found / len(words), 3)
    best, best_score = "", -1
    for s in evidence:
        score = _shared(words, s.forms())
        if score > best_score:
            best, best_score = s.text, score
    reading.best_evidence = best


#: this many significant words in a row that the evidence never uses are a claim of the proposal's own
ADDED_RUN = 3


def _added(reading: Reading, claim: list[Sentence], evidence: list[Sentence], title_forms, ignore) -> None:
    have = {f for s in evidence for f in s.forms()} | title_forms
    for sentence in claim:
        run: list[str] = []
        for w in _significant(sentence.words, ignore):
            run = [*run, w.text] if not w.forms & have else []
            if len(run) >= ADDED_RUN:
                reading.findings.append(
                    Finding("supported", "added", f"the evidence says nothing of {' '.join(run)!r}")
                )
                return


def _aligned_sentences(claim_words: str, evidence, ignore) -> list[Sentence]:
    claim = [w for s in sentences(claim_words) for w in _significant(s.words, ignore)]
    need = max(2, int(0.4 * len(claim) + 0.5))
    out = []
    for _, ss in evidence:
        for sent in ss:
            if _shared(claim, sent.forms()) >= min(need, max(1, len(claim))):
                out.append(sent)
    return out


def _hedged(reading: Reading, claim: list[Sentence], claim_words: str, evidence: list[Sentence], ignore) -> None:
    low = claim_words.lower()
    if any(w in ATTRIBUTION or w in HEDGES for w in re.findall(r"[a-z']+", low)):
        return
    fake = [(None, evidence)]
    for sent in _aligned_sentences(claim_words, fake, ignore):
        text = sent.text.lower()
        words = set(re.findall(r"[a-z']+", text))
        if words & HEDGES or any(p in text for p in _HEDGE_PHRASES):
            reading.findings.append(Finding("supported", "hedge", f"the evidence only supposes it: {sent.text[:80]!r}"))
            return


def _instance_and_limits(reading: Reading, claim_words: str, evidence, ignore) -> None:
    claim_low = claim_words.lower()
    claim_forms = content_lemmas(claim_words)
    claim_tokens = set(re.findall(r"[a-z0-9'-]+", claim_low))
    aligned = _aligned_sentences(claim_words, evidence, ignore)
    # a universal word the evidence itself states ("whenever you cite") is kept, in whatever words ("every")
    universal = any(_low_words(sent.text) & GENERAL for sent in aligned)
    generalised = (
        set()
        if universal
        else (claim_tokens & GENERAL) - {w for _, ss in evidence for s in ss for w in _low_words(s.text)}
    )
    if generalised:
        reading.findings.append(
            Finding("scope_fits", "general", f"{min(generalised)!r} claims more than the evidence shows")
        )
    for sent in aligned:
        text = sent.text
        low = text.lower()
        words = _low_words(text)
        marks = (words & INSTANCE) | {p for p in _INSTANCE_PHRASES if p in low}
        marks |= {m.lower() for m in _INSTANCE_PATTERN.findall(text)}
        if marks and not _keeps(claim_tokens, claim_forms, marks, claim_low):
            reading.findings.append(
                Finding("scope_fits", "single_instance", f"the evidence is one case ({min(marks)!r})")
            )
            break
    for sent in aligned:
        for m in _LIMITS.finditer(sent.text):
            marker = m.group(1).lower()
            after = re.split(r"[,;:.!?()]", sent.text[m.end() : m.end() + 60])[0]
            keys = content_lemmas(" ".join(after.split()[:4])) - STOP
            if marker in claim_low or (keys & claim_forms):
                continue
            reading.findings.append(
                Finding("scope_fits", "time_limit", f"the evidence holds only {marker} {' '.join(after.split()[:4])}")
            )
            return


def _keeps(claim_tokens: set[str], claim_forms: set[str], marks: set[str], claim_low: str) -> bool:
    for mark in marks:
        parts = mark.split()
        if mark in claim_low or any(p in claim_tokens for p in parts if p not in STOP and p != "last"):
            return True
    return bool(claim_tokens & INSTANCE)


def _low_words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9'-]+", text.lower()))
