"""Fit the relevance curves (manager/kb/relevance.py) and choose the default relevance floor.

    python3 -m bench.calibrate [--embedder default|minilm|hashing] [--results PATH]

On the tuning third of each judged collection's queries (bench/quality.py) and the tuning third of
its off-topic queries (bench/offtopic.py), each leg's candidates (50 per leg, as search reads them)
become (evidence, label) pairs: label 1 when the passage's document is judged relevant to the query,
0 otherwise (every candidate of an off-topic query is 0; a Lee query's own document is left out).
Two logistic curves are fitted by Newton's method, each pair weighted 1 / (the query's candidates in
that leg) and the two labels weighted to equal totals (so 0.5 means "as likely from a relevant pair as
from another"): lexical on weighted coverage, ln(query words), their product and the whole-identifier
flag; vector on the cosine and ln(query words). The floor is then the largest value, in steps of
0.01, at which at most 2% of each collection's tuning queries get nothing (every hit below it). The
test parts are not read. Paste the printed curves into relevance.CALIBRATIONS and the floor into
limits.DEFAULT_RELEVANCE_FLOOR; bench.quality then reports both on the test parts.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from .common import machine
from .datasets import Collection
from .datasets_more import split
from .offtopic import off_topic
from .quality import COLLECTIONS, pick_embedder

#: at most this share of a collection's tuning queries may get nothing at the chosen floor
FALSE_ABSTENTION = 0.02
DEPTH = 50


def logistic_fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Weighted logistic regression by Newton's method: [intercept, coefficients...]."""
    x = np.hstack([np.ones((len(x), 1)), x])
    b = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-(x @ b)))
        gradient = x.T @ (w * (y - p)) - l2 * b
        hessian = -(x.T * (w * p * (1 - p))) @ x - l2 * np.eye(len(b))
        step = np.linalg.solve(hessian, gradient)
        b -= step
        if np.abs(step).max() < 1e-10:
            break
    return b


def balanced(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.where(y == 1, w / w[y == 1].sum(), w / w[y == 0].sum())


def evidence(embedder, coll: Collection, parts: list[Collection], workdir: Path) -> list[dict]:
    """Per query of `parts`: its legs' candidates with their evidence and labels (query's own doc left out)."""
    from memgate.manager import DatabaseSettings, Identity, MemoryManager, open_backend
    from memgate.manager.clock import now_iso
    from memgate.manager.kb import relevance
    from memgate.manager.kb import search as kb_search

    who = Identity(tenant="bench", user="bench", principal="bench")
    manager = MemoryManager(open_backend(DatabaseSettings(path=workdir / f"cal-{coll.name}.db")), embedder=embedder)
    for doc_id, text in coll.docs.items():
        manager.ingest_text(who, title=doc_id, text=text, source_uri=f"{coll.name}://{doc_id}", collection=coll.name)
    out = []
    with manager.backend.session(who) as s:
        now = now_iso()
        for part in parts:
            for qid, query in part.queries.items():
                legs = kb_search.run_legs(s, embedder, query, now, depth=DEPTH)
                own = part.source_doc[qid]
                seqs = {seq for ranked in legs.scored.values() for seq, _ in ranked}
                titles = {r["seq"]: r["title"] for r in s.fetch_all("kb_chunk_details", seqs=json.dumps(sorted(seqs)))}
                q = relevance.QueryEvidence.of(query)
                keep = {
                    m: [(seq, v) for seq, v in ranked if titles.get(seq) != own] for m, ranked in legs.scored.items()
                }
                label = {seq: int(part.qrels[qid].get(titles.get(seq, ""), 0) > 0) for seq in seqs}
                texts = legs.texts
                out.append(
                    {
                        "collection": coll.name.split("-")[0],
                        "part": part.name,
                        "query": query,
                        "judged": bool(part.qrels[qid]),
                        "words": len(q.words),
                        "lexical": [
                            (q.coverage(texts[seq]), q.names_whole(texts[seq]), label[seq])
                            for seq, _ in keep.get("lexical", [])
                        ],
                        "vector": [(cos, label[seq]) for seq, cos in keep.get("vector", [])],
                        "legs": keep,
                        "weights": legs.weights,
                        "texts": {seq: texts[seq] for seq, _ in keep.get("lexical", [])},
                    }
                )
    manager.close()
    return out


def lexical_rows(q: dict, coverage: float, exact: bool) -> list[float]:
    n = math.log(max(1, q["words"]))
    return [coverage, n, coverage * n, float(exact)]


def fit(queries: list[dict]) -> dict:
    lx, ly, lw, vx, vy, vw = [], [], [], [], [], []
    for q in queries:
        n = math.log(max(1, q["words"]))
        for cov, exact, label in q["lexical"]:
            lx.append(lexical_rows(q, cov, exact))
            ly.append(label)
            lw.append(1 / len(q["lexical"]))
        for cos, label in q["vector"]:
            vx.append([cos, n])
            vy.append(label)
            vw.append(1 / len(q["vector"]))
    lexical = logistic_fit(np.array(lx), np.array(ly, float), balanced(np.array(ly), np.array(lw)))
    vector = logistic_fit(np.array(vx), np.array(vy, float), balanced(np.array(vy), np.array(vw)))
    return {"lexical": [round(float(v), 2) for v in lexical], "vector": [round(float(v), 2) for v in vector]}


def best_relevance(q: dict, embedder_name: str) -> float:
    from memgate.manager.kb import relevance

    fused = relevance.fuse(q["query"], q["legs"], q["weights"], q["texts"], embedder_name)
    return max((f.score for f in fused), default=0.0)


def choose_floor(queries: list[dict], embedder_name: str) -> tuple[float, dict]:
    best: dict[str, list[float]] = {}
    for q in queries:
        key = f"{q['collection']}/{'judged' if q['judged'] else 'off-topic'}"
        best.setdefault(key, []).append(best_relevance(q, embedder_name))
    floor = 0.0
    for step in range(1, 100):
        candidate = step / 100
        if all(
            sum(b < candidate for b in values) <= FALSE_ABSTENTION * len(values)
            for key, values in best.items()
            if key.endswith("/judged")
        ):
            floor = candidate
    shares = {k: round(sum(b < floor for b in v) / len(v), 3) for k, v in sorted(best.items())}
    return floor, shares


def main(argv: list[str] | None = None) -> int:
    from memgate.manager.kb import relevance

    parser = argparse.ArgumentParser(prog="python3 -m bench.calibrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=["default", "hashing", "minilm"], default="default")
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    started, embedder = time.perf_counter(), pick_embedder(args.embedder)
    queries: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="memgate-calibrate-") as tmp:
        for make in COLLECTIONS.values():
            coll = make()
            queries += evidence(embedder, coll, [split(coll, "tune"), split(off_topic(coll), "tune")], Path(tmp))
    curves = fit(queries)
    relevance.CALIBRATIONS[embedder.name] = relevance.Calibration(
        lexical=tuple(curves["lexical"]),
        vector=tuple(curves["vector"]),
    )
    floor, shares = choose_floor(queries, embedder.name)
    data = {
        "embedder": embedder.name,
        "curves": curves,
        "floor": floor,
        "tuning_shares_with_nothing": shares,
        "tuning_queries": len(queries),
        "machine": machine(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "seconds": round(time.perf_counter() - started, 1),
    }
    out = args.results or Path(__file__).parent / "results" / f"calibration-{embedder.name}.json"
    out.write_text(json.dumps(data, indent=2) + "\n")
    print(f'    "{embedder.name}": Calibration(lexical={tuple(curves["lexical"])}, vector={tuple(curves["vector"])}),')
    print(f"floor {floor}: share of tuning queries with nothing {shares}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
