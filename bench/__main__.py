"""`python3 -m bench all`: every benchmark in turn, each with its defaults (about 20 minutes on 2 cores)."""

from __future__ import annotations

import importlib
import sys

#: in the order docs/benchmarks.md shows them
SUITE = (
    "menu",
    "governance",
    "latency",
    "load",
    "search",
    "lexical_index",
    "ingest",
    "rss",
    "quality",
    "reliability",
    "portability",
)


def main(argv: list[str]) -> int:
    if argv[:1] != ["all"] and not (argv and argv[0] in SUITE):
        print(f"usage: python3 -m bench all | {' | '.join(SUITE)} [options]", file=sys.stderr)
        return 2
    names = SUITE if argv[0] == "all" else (argv[0],)
    failed = 0
    for name in names:
        failed += bool(importlib.import_module(f"bench.{name}").main(argv[1:] if argv[0] != "all" else []))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
