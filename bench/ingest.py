"""Ingest throughput: chunks per second through the real ingest path (parse, chunk, embed, insert).

    python3 -m bench.ingest [--files 60] [--paragraphs 40]

Markdown files of generated paragraphs (real words, Zipf-like; bench/corpus.py's
vocabulary) are ingested one by one with MemoryManager.ingest_file, the call `memgate
ingest` makes per file, into a fresh SQLite file with the default embedder. For scale,
the same run times the embedder alone on the stored chunk texts (the part no database
work can remove).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from .common import machine, markdown_table, report
from .corpus import vocabulary


def write_files(folder: Path, files: int, paragraphs: int, seed: int = 3) -> int:
    rng = random.Random(seed)
    words = vocabulary()
    weights = [1 / (r + 1) for r in range(len(words))]
    folder.mkdir(parents=True, exist_ok=True)
    size = 0
    for f in range(files):
        paras = [
            " ".join(rng.choices(words, weights, k=rng.randint(40, 120))).capitalize() + "." for _ in range(paragraphs)
        ]
        text = f"# Generated document {f}\n\n" + "\n\n".join(paras) + "\n"
        (folder / f"doc_{f:04d}.md").write_text(text)
        size += len(text.encode())
    return size


def measure(workdir: Path, files: int, paragraphs: int) -> dict:
    from memgate.manager import DatabaseSettings, Identity, MemoryManager, default_embedder, open_backend

    folder = workdir / "docs"
    size = write_files(folder, files, paragraphs)
    embedder = default_embedder()
    manager = MemoryManager(open_backend(DatabaseSettings(path=workdir / "ingest.db")), embedder=embedder)
    who = Identity(tenant="bench", principal="bench")
    try:
        started = time.perf_counter()
        results = [manager.ingest_file(who, path, collection="bench") for path in sorted(folder.iterdir())]
        seconds = time.perf_counter() - started
        failed = [r for r in results if r.status == "failed"]
        chunks = sum(r.chunks for r in results)
        with manager.backend.session(who) as s:
            texts = [r["content"] for r in s.raw("SELECT content FROM knowledge_base_chunk")]
        t0 = time.perf_counter()
        embedder.embed(texts)
        embed_s = time.perf_counter() - t0
    finally:
        manager.close()
    return {
        "files": files,
        "failed": len(failed),
        "megabytes": round(size / 2**20, 2),
        "chunks": chunks,
        "tokens": sum(r.tokens for r in results),
        "seconds": round(seconds, 2),
        "chunks_per_s": round(chunks / seconds, 1),
        "embedder": embedder.name,
        "embed_only_chunks_per_s": round(len(texts) / embed_s, 1),
        "target_chunks_per_s": 1000,
    }


def table(d: dict) -> str:
    return markdown_table(
        ["files", "MB", "chunks", "tokens", "seconds", "chunks/s (full path)", "embedder alone, chunks/s", "target"],
        [
            [
                d["files"],
                d["megabytes"],
                d["chunks"],
                d["tokens"],
                d["seconds"],
                d["chunks_per_s"],
                d["embed_only_chunks_per_s"],
                f">= {d['target_chunks_per_s']}: "
                f"{'met' if d['chunks_per_s'] >= d['target_chunks_per_s'] else 'missed'}",
            ]
        ],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.ingest", description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=60)
    parser.add_argument("--paragraphs", type=int, default=40, help="paragraphs per file (default 40)")
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    started, info = time.perf_counter(), machine()
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        data = measure(Path(tmp), args.files, args.paragraphs)
    data["machine"] = info
    report(
        "ingest",
        f"Ingest throughput (MemoryManager.ingest_file per file, embedder {data['embedder']})",
        data,
        table(data),
        results=args.results,
        started=started,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
