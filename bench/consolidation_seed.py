"""A tenant seeded for consolidation, with what was planted: the answer key precision and recall are
measured against (bench/portability.py, tests/consolidation/test_consolidate.py).

Jane's notes (remembered notes, as the gate writes them) are sentences of six templates; planted
among them are copies that differ in case, spacing or punctuation, paraphrases with the same
names and numbers (word order, inflection), and two that change a word for a synonym ("handles"
for "serves"), which the rule does not claim to find (they count against its recall). The hard negatives are the same sentences with another name or number, and
Bob's copies of Jane's notes (another scope). The tenant's handbook passages are re-ingested under
other names, verbatim or re-cased (planted), or with a number changed (not). Some of Jane's notes
copy a handbook sentence (planted), others only talk about one. Six service latencies were
corrected from 120 to 95 ms; summaries written before that state 120 (planted), others state 95,
or 120 of something else.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = ["Planted", "score", "seed_tenant"]

PEOPLE = ("Alice", "Bruno", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivo", "Jun", "Kofi", "Lena")
TEAMS = ("search", "billing", "payments", "mobile", "infra", "support", "growth", "security")
CITIES = ("Lisbon", "Oslo", "Nairobi", "Lima", "Osaka", "Denver", "Porto", "Tallinn")
#: (sentence, a paraphrase with the same names and numbers)
TEMPLATES = (
    ("{p} leads the {team} team since {year}.", "Since {year}, {p} is leading the {team} team."),
    (
        "The {team} service handles {n} requests per second at peak.",
        "At peak the {team} service handles {n} requests per second.",
    ),
    ("{p} works from the {city} office on Tuesdays.", "On Tuesdays {p} works from the {city} office."),
    ("The {team} on-call rotation changes every {n} days.", "Every {n} days the {team} on-call rotation changes."),
    ("Our {city} warehouse ships {n} orders a day.", "Each day our {city} warehouse ships {n} orders."),
    (
        "{p} prefers written status updates about {team} over meetings.",
        "About {team}, {p} prefers written status updates over meetings.",
    ),
)
PASSAGE = (
    "The {team} runbook: restart the {team} worker after {n} failed health checks in a row. "
    "Page {p} when a restart does not help within ten minutes. "
    "Write the incident down in the {team} log before the end of the shift."
)
STALE = "Weekly review: the {team} service p95 latency was 120 ms, above the target."
CURRENT = "Weekly review: the {team} service p95 latency improved to 95 ms."
UNRELATED = "Weekly review: the {city} hall for the offsite holds 120 people."


@dataclass
class Planted:
    #: frozenset({retired id, kept id}) -> reason
    pairs: dict[frozenset[str], str] = field(default_factory=dict)


def _fill(template: str, rng: random.Random, **fixed) -> tuple[str, dict[str, object]]:
    values = {
        "p": rng.choice(PEOPLE),
        "team": rng.choice(TEAMS),
        "city": rng.choice(CITIES),
        "year": rng.randrange(2012, 2025),
        "n": rng.randrange(3, 900),
    }
    values.update(fixed)
    return template.format(**values), values


def seed_tenant(manager, rng: random.Random, tenant: str = "bench") -> Planted:
    from memgate.manager import Identity, days_ago_iso
    from memgate.manager.claims import entities

    planted = Planted()
    jane = Identity(tenant=tenant, user="jane", principal="seed")
    bob = Identity(tenant=tenant, user="bob", principal="seed")
    everyone = Identity(tenant=tenant, principal="seed")
    counter = iter(range(10_000))

    def note(who, text: str) -> str:
        n = next(counter)
        done = manager.ingest_text(
            who,
            title=f"note: {text[:60]}",
            text=f"{text}\n\nEvidence: seed_{n}",
            source_uri=f"memory://seed_{n}",
            collection="remembered",
            user_id=who.user,
        )
        return done.document_id

    # -- Jane's notes: originals, planted copies and paraphrases, hard negatives -----------------------
    originals: list[tuple[str, str, dict, int]] = []
    used: set[str] = set()
    while len(originals) < 48:
        k = len(originals) % len(TEMPLATES)
        text, values = _fill(TEMPLATES[k][0], rng)
        if text not in used:
            used.add(text)
            originals.append((note(jane, text), text, values, k))
    for i, (doc, text, values, k) in enumerate(rng.sample(originals, 16)):
        if i % 2:
            twin = TEMPLATES[k][1].format(**values)
        else:
            twin = rng.choice(
                [text.upper(), text.lower(), "  " + text.replace(" ", "  ") + "  ", text.rstrip(".") + "!"]
            )
        planted.pairs[frozenset({note(jane, twin), doc})] = "near_duplicate"
    synonyms = (("handles", "serves"), ("works from", "works out of"))
    for old, new in synonyms:
        doc, text, _, _ = next(o for o in originals if old in o[1])
        planted.pairs[frozenset({note(jane, text.replace(old, new)), doc})] = "near_duplicate"
    for doc, text, values, k in rng.sample(originals, 16):
        changed = dict(values)
        slot = rng.choice([s for s in ("p", "team", "city", "year", "n") if "{" + s + "}" in TEMPLATES[k][0]])
        while changed[slot] == values[slot]:
            changed[slot] = _fill("{" + slot + "}", rng)[1][slot]
        negative = TEMPLATES[k][0].format(**changed)
        if negative not in used:
            used.add(negative)
            note(jane, negative)
    for _, text, _, _ in rng.sample(originals, 4):
        note(bob, text)  # another scope: never Jane's duplicate

    # -- the handbook: passages, re-ingested copies (planted) and altered ones (not) ---------------------
    passages = []
    for i, team in enumerate(TEAMS * 2):
        text, values = _fill(PASSAGE, rng, team=team, n=3 + i)
        done = manager.ingest_text(
            everyone, title=f"runbook {i}", text=text, source_uri=f"handbook://{i}", collection="handbook"
        )
        passages.append((done.document_id, text))
    chunk_of = {doc: _chunks(manager, everyone, doc)[0] for doc, _ in passages}
    copied = rng.sample(range(len(passages)), 8)
    for j, i in enumerate(copied):
        doc, text = passages[i]
        copy = text if j < 5 else text.replace("The ", "the ", 1).replace("  ", " ").upper() if j == 5 else text + " "
        done = manager.ingest_text(
            everyone, title=f"copy {j}", text=copy, source_uri=f"copy://{j}", collection="handbook"
        )
        planted.pairs[frozenset({_chunks(manager, everyone, done.document_id)[0], chunk_of[doc]})] = "near_duplicate"
    altered_from = rng.sample([i for i in range(len(passages)) if i not in copied], 3)
    for j, i in enumerate(altered_from):
        doc, text = passages[i]
        altered = text.replace("ten minutes", f"{20 + j} minutes")
        manager.ingest_text(
            everyone, title=f"altered {j}", text=altered, source_uri=f"altered://{j}", collection="handbook"
        )

    # -- Jane's notes that copy a handbook sentence (planted), or only talk about one (not) ------------
    free = [i for i in range(len(passages)) if i not in copied and i not in altered_from]
    for i in rng.sample(free, 5):
        doc, text = passages[i]
        sentence = text.split(". ")[0] + "."
        planted.pairs[frozenset({note(jane, sentence), chunk_of[doc]})] = "repeats_kb"
    for team in rng.sample(TEAMS, 3):
        note(jane, f"Restarts rarely fix the {team} worker for long, in my experience.")

    # -- corrected latencies and the summaries written before the correction ------------------------
    before, corrected, written = days_ago_iso(30), days_ago_iso(10), days_ago_iso(20)
    claims = {}
    with manager.backend.session(everyone) as s:
        for team in TEAMS[:6]:
            entities.correct(
                s, everyone, subject=f"service:{team}", predicate="p95_latency_ms", content="120", now=before
            )
            claims[team] = entities.correct(
                s, everyone, subject=f"service:{team}", predicate="p95_latency_ms", content="95", now=corrected
            )["id"]
    with manager.backend.session(jane) as s:
        for n, team in enumerate(TEAMS[:6]):
            sid = f"sum_stale_{n}"
            _summary(s, sid, tenant, STALE.format(team=team), written)
            planted.pairs[frozenset({claims[team], sid})] = "stale"
        for n, team in enumerate(TEAMS[:3]):
            _summary(s, f"sum_current_{n}", tenant, CURRENT.format(team=team), days_ago_iso(5))
        for n, city in enumerate(CITIES[:2]):
            _summary(s, f"sum_unrelated_{n}", tenant, UNRELATED.format(city=city), written)
        _summary(s, "sum_dup_a", tenant, "Quarterly plan: ship the billing export before the audit in May.", written)
        _summary(
            s, "sum_dup_b", tenant, "QUARTERLY PLAN: ship the billing export before the audit in May", days_ago_iso(6)
        )
        planted.pairs[frozenset({"sum_dup_a", "sum_dup_b"})] = "near_duplicate"
    return planted


def _summary(s, sid: str, tenant: str, text: str, at: str) -> None:
    s.insert(
        "summarization_memory",
        {
            "id": sid,
            "tenant_id": tenant,
            "user_id": "jane",
            "title": text[:40],
            "content": text,
            "valid_from": at,
            "created_at": at,
        },
    )


def _chunks(manager, who, document_id: str) -> list[str]:
    with manager.backend.session(who) as s:
        return [c["id"] for c in s.fetch_all("kb_document_chunks", document=document_id)]


def score(report, planted: Planted) -> dict:
    """Precision and recall of a consolidation report against the planted pairs."""
    proposed = [(frozenset({f.match.source.id, f.match.target.id}), f.match.reason) for f in report.found]
    hits = {pair for pair, _ in proposed if pair in planted.pairs}
    by_reason: dict[str, dict[str, int]] = {}
    for pair, reason in planted.pairs.items():
        row = by_reason.setdefault(reason, {"planted": 0, "found": 0})
        row["planted"] += 1
        row["found"] += pair in hits
    false = [sorted(pair) for pair, _ in proposed if pair not in planted.pairs]
    return {
        "planted": len(planted.pairs),
        "proposed": len(proposed),
        "true": len(hits),
        "false": len(false),
        "false_pairs": false[:10],
        "precision": round(len(hits) / len(proposed), 3) if proposed else 1.0,
        "recall": round(len(hits) / len(planted.pairs), 3),
        "by_reason": by_reason,
    }
