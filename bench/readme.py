"""Put each benchmark's latest table (from bench/results/<name>.json) into the README and docs/benchmarks.md.

    python3 -m bench.readme            # rewrite the pages' tables from bench/results/
    python3 -m bench.readme --check    # exit 1 when a page's table differs from its JSON

Each table sits between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` in README.md or
docs/benchmarks.md and is rendered by that benchmark's own `table()`, under the machine line, so
rerunning a benchmark and then this command keeps the pages true. A table that docs/benchmarks.md
holds has moved there: README.md's copy of it is left as it is (until the README drops it).
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from pathlib import Path

from .common import RESULTS, machine_line

README = Path(__file__).resolve().parent.parent / "README.md"
BENCHMARKS = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
_BLOCK = re.compile(r"(<!-- bench:(\w+) -->\n)(.*?)(<!-- /bench:\2 -->)", re.DOTALL)


def render(name: str, results: Path = RESULTS) -> str:
    data = json.loads((results / f"{name}.json").read_text())
    module = importlib.import_module(f"bench.{name}")
    table = module.table(data["sizes"]) if name == "search" else module.table(data)
    extra = f"\n\n{module.summary(data)}" if hasattr(module, "summary") else ""
    took = f", {data['seconds']} s" if "seconds" in data else ""
    return f"{machine_line(data['machine'])}; measured {data['machine']['measured_at']}{took}.\n\n{table}{extra}\n"


def rewrite(text: str, results: Path = RESULTS, moved: frozenset[str] = frozenset()) -> str:
    """`text` with each table block re-rendered, except those named in `moved`."""
    return _BLOCK.sub(
        lambda m: m.group(0) if m.group(2) in moved else m.group(1) + render(m.group(2), results) + m.group(4), text
    )


def moved_tables() -> frozenset[str]:
    """The tables docs/benchmarks.md holds (README.md's copies of them are no longer kept up to date)."""
    return frozenset(m[1] for m in _BLOCK.findall(BENCHMARKS.read_text())) if BENCHMARKS.is_file() else frozenset()


def pages() -> dict[Path, str]:
    """Each page's text as it should be."""
    moved = moved_tables()
    out = {README: rewrite(README.read_text(), moved=moved)}
    if BENCHMARKS.is_file():
        out[BENCHMARKS] = rewrite(BENCHMARKS.read_text())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.readme", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether README.md is up to date")
    args = parser.parse_args(argv)
    stale = [path for path, new in pages().items() if new != path.read_text()]
    if args.check:
        if stale:
            names = ", ".join(p.name for p in stale)
            print(f"{names}: benchmark tables differ from bench/results/: run python3 -m bench.readme", file=sys.stderr)
            return 1
        return 0
    for path, new in pages().items():
        path.write_text(new)
        print(f"updated {len(_BLOCK.findall(new))} tables in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
