"""Recall over conversations on LoCoMo: which ranking of past turns brings back a question's evidence.

    python3 -m bench.recall_study [path/to/locomo10.zip] --tune 0,1,2 [--embedder minilm] [--search]

Each LoCoMo conversation is one user's history, each session a thread, each question (categories
1-4 with evidence: 1,536) asked in a fresh thread, so every turn of its user is a candidate. The legs
are built as memgate builds them (bench/recall_data.py): a lexical top-N from FTS5 with the knowledge
base's tokenizer and query terms, a vector top-N from the embedder, and the turns around the best
candidates fetched by (thread, turn index). Each variant ranks them with
manager/conversations/recall_rank.py, a step switched off by a zero weight. The figure is turn-level
recall: per question, the share of its evidence turns among the first k, averaged over questions;
"tokens" admits turns in rank order, rendered "Speaker (8 May 2023): text", while they fit the budget.
rank_bm25 over the same rendered turns is the floor, at the same k.

The weights were chosen on the questions of the --tune conversations (`--search` replays that choice:
a coordinate search of each weight on those questions only); every table shows the held-out
conversations apart. Nothing is downloaded; LoCoMo is read from the zip, its turns kept in a temporary
folder while the study runs, and only figures are written (bench/results/recall_study_<embedder>.json).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from memgate.manager.conversations.recall_rank import WEIGHTS, Candidate, RecallWeights, TurnId, rank_turns
from memgate.manager.tokens import count_tokens

from .common import machine, machine_line, markdown_table, summary_ms, write_result
from .recall_data import CATEGORIES, Legs, LoCoMo, Question, bm25_peer, default_zip, load_locomo

K = (5, 10, 25, 37, 40, 50, 60)
#: recalled-history slices the token columns admit into (a LoCoMo turn renders to ~30-40 tokens)
BUDGETS = (1000, 1500, 2000)
#: each leg's top-N, and what the recommended ranking needs
DEPTH = 200
#: every step off, and no neighbours fetched: the legs and their fusion alone
OFF = RecallWeights(previous=0, following=0, second=0, conversation=0, other_speaker=1, temporal=0, expand_top=0)
#: what a variant ranks: the product's candidates (the lexical query without the speakers' names, each
#: turn embedded with the turn it replies to, the question's content words embedded), the same with a
#: plain embedding (each turn alone, the whole question), or with the names left in the lexical query
PRODUCT, PLAIN, NAMES = "product", "plain embedding", "names kept"
#: name -> (weights, legs used, candidates); the recommended one last
VARIANTS: dict[str, tuple[RecallWeights, str, str]] = {
    "FTS5 lexical alone": (replace(OFF, vector=0.0), "lexical", PRODUCT),
    "vector alone": (replace(OFF, vector=1.0), "vector", PRODUCT),
    "vector alone, plain embedding": (replace(OFF, vector=1.0), "vector", PLAIN),
    "fused, RRF": (replace(OFF, fusion="rrf"), "both", PRODUCT),
    f"fused, convex {1 - WEIGHTS.vector:.1f}/{WEIGHTS.vector:.1f}": (OFF, "both", PRODUCT),
    "+ neighbours": (
        replace(
            OFF,
            previous=WEIGHTS.previous,
            following=WEIGHTS.following,
            second=WEIGHTS.second,
            expand_top=WEIGHTS.expand_top,
        ),
        "both",
        PRODUCT,
    ),
    "+ conversation strength": (replace(WEIGHTS, other_speaker=1, temporal=0), "both", PRODUCT),
    "+ named speaker": (replace(WEIGHTS, temporal=0), "both", PRODUCT),
    "recommended, no vector leg": (replace(WEIGHTS, vector=0.0), "lexical", PRODUCT),
    "recommended, RRF": (replace(WEIGHTS, fusion="rrf"), "both", PRODUCT),
    "recommended, plain embedding": (WEIGHTS, "both", PLAIN),
    "recommended, names in the lexical query": (WEIGHTS, "both", NAMES),
    "recommended, no neighbour fetch": (replace(WEIGHTS, expand_top=0), "both", PRODUCT),
    "recommended (+ when)": (WEIGHTS, "both", PRODUCT),
}
RECOMMENDED = "recommended (+ when)"
#: where --search starts (the weights before it was run) and the grid it tries each weight on
SEARCH_START = RecallWeights(
    vector=0.3,
    previous=0.4,
    following=0.2,
    second=0.0,
    conversation=0.4,
    conversation_top=3,
    other_speaker=0.5,
    temporal=0.0,
)
GRID: dict[str, tuple[Any, ...]] = {
    "vector": (0.1, 0.2, 0.3, 0.4, 0.5, 0.6),
    "previous": (0.0, 0.2, 0.3, 0.4, 0.5, 0.6),
    "following": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5),
    "second": (0.0, 0.05, 0.1, 0.2),
    "conversation": (0.0, 0.1, 0.2, 0.3, 0.4, 0.6),
    "conversation_top": (1, 2, 3, 5, 8),
    "other_speaker": (0.3, 0.4, 0.5, 0.6, 0.7, 1.0),
    "temporal": (0.0, 0.1, 0.2, 0.3, 0.5),
}


class Study:
    """Each question's candidates, fetched once, and every variant's ranking of them."""

    def __init__(self, data: LoCoMo, legs: Legs, plain: Legs | None, depth: int):
        self.data, self.legs, self.depth = data, legs, depth
        self.tokens = {t.id: count_tokens(t.rendered()) for turns in data.turns.values() for t in turns}
        self.by_id = {t.id: t.candidate() for turns in data.turns.values() for t in turns}
        self.lexical = [legs.lexical(q, depth) for q in data.questions]
        self.vector = [legs.vector(q, depth) for q in data.questions]
        self.vector_plain = [plain.vector(q, depth) if plain else [] for q in data.questions]
        self.lexical_named = [legs.lexical(q, depth, names=True) for q in data.questions]

    def fetched(self, ids: Sequence[TurnId]) -> list[Candidate]:
        """The neighbour fetch from memory (the SQL one is timed in `timing`; both return the same turns)."""
        return [self.by_id[i] for i in ids if i in self.by_id]

    def ranking(self, n: int, weights: RecallWeights, legs: str, inputs: str = PRODUCT) -> list[TurnId]:
        lexical = (self.lexical_named[n] if inputs == NAMES else self.lexical[n]) if legs != "vector" else []
        vector = (self.vector_plain[n] if inputs == PLAIN else self.vector[n]) if legs != "lexical" else []
        recall = rank_turns(self.data.questions[n].text, lexical, vector, self.fetched, weights)
        return [r.id for r in recall.turns]

    def scores(self, rankings: Sequence[Sequence[TurnId]], picked: Sequence[int]) -> dict[str, float]:
        """Recall at each k and within the token budget, averaged over the picked questions."""
        questions = self.data.questions
        out: dict[str, float] = {}
        for k in K:
            out[f"R@{k}"] = _mean(_recall(questions[n], rankings[n][:k]) for n in picked)
        for budget in BUDGETS:
            admitted = {n: self._within_budget(rankings[n], budget) for n in picked}
            out[f"R@{budget} tokens"] = _mean(_recall(questions[n], admitted[n]) for n in picked)
            out[f"turns in {budget} tokens"] = round(_mean(len(a) for a in admitted.values()), 1)
        return out

    def _within_budget(self, ranked: Sequence[TurnId], budget: int) -> list[TurnId]:
        """The turns admitted in rank order while they fit `budget` tokens (one that does not fit is passed)."""
        taken: list[TurnId] = []
        left = budget
        for tid in ranked:
            if self.tokens[tid] <= left:
                taken.append(tid)
                left -= self.tokens[tid]
        return taken


def _recall(q: Question, admitted: Sequence[TurnId]) -> float:
    return len(q.evidence.intersection(admitted)) / len(q.evidence) if q.evidence else 0.0


def _mean(values) -> float:
    values = list(values)
    return round(statistics.mean(values), 4) if values else 0.0


def _timed(into: list[float], call: Callable):
    started = time.perf_counter()
    out = call()
    into.append((time.perf_counter() - started) * 1000)
    return out


def search(study: Study, tune: Sequence[int], start: RecallWeights) -> tuple[RecallWeights, list[str]]:
    """Each weight in turn set to its best grid value on the tuning questions (mean of R@25, R@37, R@50),
    twice over; a value must beat the current one by 1e-4 to replace it, so ties keep the earlier value."""

    @cache
    def objective(weights: RecallWeights) -> float:
        rankings = {n: study.ranking(n, weights, "both") for n in tune}
        s = study.scores([rankings.get(n, []) for n in range(len(study.data.questions))], tune)
        return (s["R@25"] + s["R@37"] + s["R@50"]) / 3

    weights, log = start, []
    for sweep in range(2):
        for name, values in GRID.items():
            best, best_value = objective(weights), getattr(weights, name)
            for value in values:
                score = objective(replace(weights, **{name: value}))
                if score > best + 1e-4:
                    best, best_value = score, value
            weights = replace(weights, **{name: best_value})
            log.append(f"sweep {sweep + 1}: {name} = {best_value} (objective {best:.4f})")
            print(log[-1], flush=True)
    return weights, log


def timing(study: Study, legs: Legs, bm25: Callable[[Question], list[TurnId]], picked: Sequence[int]) -> dict:
    """Per question, one after the other so each pair shares the load: rank_bm25's scoring (the floor),
    then the recall leg as the product runs it (lexical fetch, vector fetch, rank_turns with its neighbour
    fetch in SQL). Ratios are of p50s, to rank_bm25's and to the FTS5 lexical fetch alone."""
    steps = ("rank_bm25 (floor)", "lexical fetch", "vector fetch", "neighbour fetch", "rank_turns", "recall leg")
    t: dict[str, list[float]] = {step: [] for step in steps}
    for n in picked:
        q = study.data.questions[n]
        _timed(t["rank_bm25 (floor)"], lambda q=q: bm25(q))
        spent: list[float] = []

        def fetch(ids: Sequence[TurnId], spent: list[float] = spent) -> list[Candidate]:
            return _timed(spent, lambda: legs.neighbours(ids))

        lexical = _timed(t["lexical fetch"], lambda q=q: legs.lexical(q, study.depth))
        vector = _timed(t["vector fetch"], lambda q=q: legs.vector(q, study.depth))
        _timed(t["rank_turns"], lambda q=q, lex=lexical, vec=vector: rank_turns(q.text, lex, vec, fetch, WEIGHTS))
        t["neighbour fetch"].append(sum(spent))
        t["rank_turns"][-1] -= sum(spent)
        t["recall leg"].append(t["lexical fetch"][-1] + t["vector fetch"][-1] + t["rank_turns"][-1] + sum(spent))
    floor, lexical_floor = statistics.median(t["rank_bm25 (floor)"]), statistics.median(t["lexical fetch"])
    return {
        name: {
            **summary_ms(v),
            "ratio_p50": round(statistics.median(v) / floor, 2),
            "ratio_p50_to_lexical_fetch": round(statistics.median(v) / lexical_floor, 2),
        }
        for name, v in t.items()
    }


def parts(data: LoCoMo, tune: set[int]) -> dict[str, list[int]]:
    qs = data.questions
    return {
        "held out": [n for n, q in enumerate(qs) if q.user not in tune],
        "tuned": [n for n, q in enumerate(qs) if q.user in tune],
    }


def study_run(path: Path, tune: set[int], embedder_name: str, depth: int, do_search: bool, results: Path | None):
    from .quality import pick_embedder

    info = machine()
    started = time.perf_counter()
    data = load_locomo(path)
    embedder = pick_embedder(embedder_name)
    with tempfile.TemporaryDirectory() as folder:
        legs = Legs(data, embedder, Path(folder))
        (Path(folder) / "plain").mkdir()
        plain = Legs(data, embedder, Path(folder) / "plain", context=False)
        study = Study(data, legs, plain, depth)
        split = parts(data, tune)
        weights, log = WEIGHTS, list[str]()
        if do_search:
            weights, log = search(study, split["tuned"], SEARCH_START)
            print(f"chosen on the tuning conversations: {weights}\n", flush=True)
        bm25 = bm25_peer(data)
        rankings = {"rank_bm25 (floor)": [bm25(q) for q in data.questions]}
        for name, (w, which, inputs) in VARIANTS.items():
            w = replace(weights, **{f: getattr(w, f) for f in _changed(w)}) if do_search else w
            rankings[name] = [study.ranking(n, w, which, inputs) for n in range(len(data.questions))]
        figures = {
            part: {name: study.scores(r, picked) for name, r in rankings.items()} for part, picked in split.items()
        }
        per_category = {
            part: {
                CATEGORIES[c]: {
                    name: study.scores(rankings[name], [n for n in picked if data.questions[n].category == c])
                    for name in ("rank_bm25 (floor)", RECOMMENDED)
                }
                for c in CATEGORIES
            }
            for part, picked in split.items()
        }
        times = timing(study, legs, bm25, range(len(data.questions)))
        embed_seconds = legs.embed_seconds
    out = {
        "machine": info,
        "dataset": str(path.name),
        "questions": {part: len(p) for part, p in split.items()},
        "tuned_on_conversations": sorted(tune),
        "embedder": embedder.name,
        "depth": depth,
        "budgets_tokens": list(BUDGETS),
        "weights": {f: getattr(weights, f) for f in weights.__dataclass_fields__},
        "search": log,
        "figures": figures,
        "per_category": per_category,
        "timing_ms": times,
        "embed_seconds": round(embed_seconds, 1),
    }
    out["machine"]["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    out["seconds"] = round(time.perf_counter() - started, 1)
    print(render(out), flush=True)
    written = write_result(f"recall_study_{embedder_name}", out, results)
    print(f"(written to {written})", flush=True)
    return out


def _changed(w: RecallWeights) -> list[str]:
    """The fields a variant sets away from the recommended weights (what it switches off or swaps)."""
    return [f for f in w.__dataclass_fields__ if getattr(w, f) != getattr(WEIGHTS, f)]


def render(out: dict) -> str:
    cols = [f"R@{k}" for k in K]
    budgets = [f"{b} tokens: R (turns)" for b in BUDGETS]
    lines = [
        "## Recall over conversations: LoCoMo, categories 1-4, sessions as threads",
        "",
        machine_line(out["machine"]) + f"; {out['machine']['load_average_end']} at the end, {out['seconds']} s.",
        "",
        f"Embedder {out['embedder']}; each leg's top {out['depth']}; "
        f"weights chosen on conversations {', '.join(map(str, out['tuned_on_conversations']))}.",
    ]
    for part, table in out["figures"].items():
        floor = table["rank_bm25 (floor)"]
        rows = [[name, *(f[c] for c in cols), *(_budget(f, b) for b in BUDGETS)] for name, f in table.items()]
        best = table[RECOMMENDED]
        ratios = [_ratio(best[c], floor[c]) for c in cols]
        ratios += [_ratio(best[f"R@{b} tokens"], floor[f"R@{b} tokens"]) for b in BUDGETS]
        rows.append([f"{RECOMMENDED} / rank_bm25", *ratios])
        head = ["variant", *cols, *budgets]
        lines += ["", f"### {part}: {out['questions'][part]} questions", "", markdown_table(head, rows)]
    for part, cats in out["per_category"].items():
        rows = []
        for cat, pair in cats.items():
            ours, floor = pair[RECOMMENDED], pair["rank_bm25 (floor)"]
            rows.append([cat, *(f"{ours[c]} / {floor[c]}" for c in ("R@5", "R@10", "R@25", "R@37", "R@50", "R@60"))])
        head = ["category", "R@5", "R@10", "R@25", "R@37", "R@50", "R@60"]
        lines += ["", f"### {part}, per category: recommended / rank_bm25", "", markdown_table(head, rows)]
    rows = [
        [name, t["p50_ms"], t["p95_ms"], t["ratio_p50"], t["ratio_p50_to_lexical_fetch"]]
        for name, t in out["timing_ms"].items()
    ]
    lines += [
        "",
        "### cost per question (ms, each question's steps run one after the other; ratios of p50s)",
        "",
        markdown_table(["step", "p50", "p95", "/ rank_bm25", "/ FTS5 lexical fetch"], rows),
        "",
        f"Embedding every turn took {out['embed_seconds']} s.",
    ]
    return "\n".join(lines)


def _budget(f: dict, budget: int) -> str:
    return f"{f[f'R@{budget} tokens']} ({f[f'turns in {budget} tokens']})"


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.recall_study", description=__doc__.split("\n")[0])
    parser.add_argument("zip", nargs="?", type=Path, default=None, help="LoCoMo's locomo10.zip")
    parser.add_argument("--tune", default="0,1,2", help="the conversations the weights are chosen on (0-9)")
    parser.add_argument("--embedder", default="wordllama", choices=("wordllama", "minilm", "hashing"))
    parser.add_argument("--depth", type=int, default=DEPTH, help="each leg's top N")
    parser.add_argument("--search", action="store_true", help="choose the weights again on the tuning conversations")
    parser.add_argument("--results", type=Path, default=None, help="folder for the JSON (default bench/results)")
    args = parser.parse_args(argv)
    path = args.zip or default_zip()
    if not path.is_file():
        parser.error(f"no LoCoMo zip at {path}: pass its path (see ../shared/data/README.md)")
    tune = {int(x) for x in args.tune.split(",") if x.strip()}
    study_run(path, tune, args.embedder, args.depth, args.search, args.results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
