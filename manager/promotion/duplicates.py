"""Duplicates by meaning: a proposal that restates what memory already holds adds nothing.

A proposal restates a record when that record alone supports all of it (support.py's checks pass:
every anchor, negation and hedge as the record has them, and nearly all its words are the record's,
by lemma): the record already says it, in whatever words. Looked for, through the caller's wall:

- a fact: the current value of its subject and predicate, or of another predicate of the same subject
  that names the same attribute in other words (`ndcg_at_10_beir` and `beir_ndcg10`), with the same value;
- a note, preference or procedure: each of its evidence records that is memory (not a turn: what
  the user said becomes memory only through the gate), and the knowledge base's closest passages
  (remembered notes included) by the lexical leg `search_memory` runs, in its own order (kb/search.py
  `lexical_top`: the same passages as a lexical-only search, without calibrating their scores);
- both: the caller's own pending candidates. Re-proposing one attaches to it (its evidence grows,
  its version with it) instead of adding a second pending row.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from ..backend.base import Row, Session
from ..claims import entities
from ..kb import search as kb_search
from ..kb.embed import Embedder
from ..links.store import ends_by_id
from .lexicon import ASKING
from .support import Reading, Source, check
from .text import STOP, content_lemmas, sentences, split_identifier

__all__ = ["Duplicate", "attach", "find"]

#: the share of a proposal's words a record must hold to restate it
RESTATES = 0.8
#: or at least this share, the record's own words nearly all in the proposal, and the embedder finds the two
#: this similar (cosine)
RESTATES_WORDS, RESTATES_SIMILAR = 0.6, 0.8
#: knowledge-base passages compared with a proposal
PASSAGES = 5
#: pending candidates compared with a proposal (the caller's newest)
PENDING = 50
#: knowledge-base collections that hold what memories were imported from (an operator's `memgate import
#: --from`), not knowledge: a passage of one is a proposal's source, never the record it duplicates
IMPORT_COLLECTION = "imported"
SOURCE_COLLECTIONS = frozenset({IMPORT_COLLECTION})


@dataclass(frozen=True)
class Duplicate:
    row: Row  # the record (memory_type, id, ...) or the pending candidate
    pending: bool = False


def normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def find(
    s: Session,
    proposal,
    evidence: list,
    sources: list[Source],
    now: str,
    embedder: Callable[[], Embedder],
    user: str | None,
    *,
    imported: bool = False,
) -> Duplicate | None:
    """The record or pending candidate `proposal` restates, or None. An `imported` proposal's evidence is
    the file it came from (SOURCE_COLLECTIONS), which it restates by design: only memory counts against it."""
    pending = _pending(s, proposal, user, embedder)
    if pending is not None:
        return Duplicate(pending, pending=True)
    if proposal.kind == "fact":
        return _fact(s, proposal, now)
    for row in s.fetch_all(
        "candidate_duplicate", content_hash=proposal.content_hash, kind=proposal.kind, scope=proposal.scope
    ):
        found = [r for r in ends_by_id(s, [row["record_id"]]) if r["deleted_at"] is None and r["valid_until"] is None]
        if found:
            return Duplicate(found[0])
    for e, source in zip(evidence, sources, strict=True):
        if (
            not imported
            and not source.user_turn
            and e.type != "conversation_memory"
            and _restates(proposal, source, user, embedder)
        ):
            return Duplicate(e.row)
    seen = {e.id for e in evidence}
    # a restatement shares nearly all its words with the record: the lexical leg finds it, no embedding spent,
    # and its own order is all this needs (no calibrated relevance: the passages are read, not scored)
    for hit in kb_search.lexical_top(s, proposal.content, now, limit=PASSAGES):
        if hit.id in seen or hit.collection in SOURCE_COLLECTIONS:
            continue
        if _restates(proposal, Source(_without_evidence_line(hit.content), hit.title), user, embedder):
            return Duplicate({"memory_type": "knowledge_base_chunk", "id": hit.id})
    return None


def _restates(proposal, source: Source, user: str | None, embedder: Callable[[], Embedder]) -> bool:
    """Whether `source` alone says everything `proposal` says: support.py finds nothing amiss, and it holds
    nearly all the proposal's words (by lemma), or half of them and the embedder finds the two alike."""
    asking = proposal.kind == "preference"
    words = content_lemmas(proposal.content) - STOP - (ASKING | {(user or "").lower()} if asking else set())
    have = content_lemmas(source.text) | content_lemmas(source.title or "")
    if not words or len(words & have) < RESTATES_WORDS * len(words):  # cheap first: most words must be there
        return False
    # a one-sentence proposal restates one sentence of the record, not words scattered over all of it
    parts = (
        [source]
        if len(sentences(proposal.content)) > 1
        else [Source(x.text, source.title) for x in sentences(source.text)]
    )
    for part in parts:
        reading: Reading = check(proposal.content, [part], kind=proposal.kind, user=user, asking=asking)
        if reading.findings or reading.coverage < RESTATES_WORDS:
            continue
        if reading.coverage >= RESTATES:
            return True
        # other words for the same thing, not one thing swapped for another ("weekly" for "daily"): the
        # record's own words must be nearly all in the proposal, and the embedder must find the two alike
        back = check(part.text, [Source(proposal.content)], kind=proposal.kind, user=user, asking=asking)
        if back.coverage < RESTATES:
            continue
        vectors = embedder().embed([proposal.content, part.text])
        if float(vectors[0] @ vectors[1]) >= RESTATES_SIMILAR:
            return True
    return False


def _without_evidence_line(text: str) -> str:
    """A remembered note's text without the `Evidence: ids` line records.note_text adds."""
    head, sep, tail = text.rpartition("\n\nEvidence: ")
    return head if sep and "\n" not in tail.strip() else text


def _fact(s: Session, p, now: str) -> Duplicate | None:
    claims, _ = entities.lookup(s, p.subject, None, now, 50)
    wanted = set(split_identifier(p.predicate)) - STOP
    for c in claims:
        current = c.current.row if c.current is not None else None
        if current is None or normal(current["content"]) != normal(p.content):
            continue
        other = set(split_identifier(c.predicate)) - STOP
        if c.predicate == p.predicate or (wanted and other and wanted == other):
            return Duplicate({**current, "memory_type": "entity_memory"})
    return None


def _pending(s: Session, p, user: str | None, embedder: Callable[[], Embedder]) -> Row | None:
    """The caller's own pending candidate this proposal restates (same kind; a fact: same subject,
    predicate and value)."""
    rows, _ = s.fetch_page("candidate_pending", PENDING, kind=p.kind)
    for row in rows:
        if row["scope"] != p.scope:
            continue
        if p.kind == "fact":
            if (row["subject"], row["predicate"]) == (p.subject, p.predicate) and normal(row["content"]) == normal(
                p.content
            ):
                return row
        elif normal(row["content"]) == normal(p.content) or _restates(p, Source(row["content"]), user, embedder):
            return row
    return None


def attach(s: Session, row: Row, refs: list[dict]) -> bool:
    """Add `refs` to a pending candidate's evidence (its next version); False when it changed meanwhile."""
    have = json.loads(row["evidence_json"])
    known = {(r["type"], r["id"]) for r in have}
    merged = have + [r for r in refs if (r["type"], r["id"]) not in known]
    s.execute(
        "candidate_attach",
        id=row["id"],
        version=row["version"],
        evidence_json=json.dumps(merged, sort_keys=True),
    )
    return True
