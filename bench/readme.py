"""Put each benchmark's latest table (from bench/results/<name>.json) into docs/benchmarks.md.

    python3 -m bench.readme            # rewrite docs/benchmarks.md's tables from bench/results/
    python3 -m bench.readme --check    # exit 1 when a table there differs from its JSON

Each table sits between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` in docs/benchmarks.md and
is rendered by that benchmark's own `table()`, under the machine line, so rerunning a
benchmark and then this command keeps the page true.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from pathlib import Path

from .common import RESULTS, machine_line

PAGE = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
_BLOCK = re.compile(r"(<!-- bench:(\w+) -->\n)(.*?)(<!-- /bench:\2 -->)", re.DOTALL)


def render(name: str, results: Path = RESULTS) -> str:
    data = json.loads((results / f"{name}.json").read_text())
    module = importlib.import_module(f"bench.{name}")
    table = module.table(data["sizes"]) if name == "search" else module.table(data)
    said = module.summary(data) if hasattr(module, "summary") else ""
    extra = f"\n\n{said}" if said else ""
    took = f", {data['seconds']} s" if "seconds" in data else ""
    return f"{machine_line(data['machine'])}; measured {data['machine']['measured_at']}{took}.\n\n{table}{extra}\n"


def rewrite(text: str, results: Path = RESULTS) -> str:
    return _BLOCK.sub(lambda m: m.group(1) + render(m.group(2), results) + m.group(4), text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.readme", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether docs/benchmarks.md is up to date")
    args = parser.parse_args(argv)
    text = PAGE.read_text()
    new = rewrite(text)
    if args.check:
        if new != text:
            print(
                "docs/benchmarks.md's benchmark tables differ from bench/results/: run python3 -m bench.readme",
                file=sys.stderr,
            )
            return 1
        return 0
    PAGE.write_text(new)
    print(f"updated {len(_BLOCK.findall(text))} tables in {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
