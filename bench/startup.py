"""CLI start-up: how long `memgate --help` and a command's --help take, against a bare interpreter.

    python3 -m bench.startup [--rounds 15]

Each round starts every command below once, in turn, as a whole process (start-up and exit
included), so a machine that speeds up or slows down during the run moves all of them alike; each
figure is the median over the rounds of the command's wall time and of its ratio to the floor
(`python3 -c pass`) of the same round. `import memgate.manager` alone shows what a command that
imported the Memory Manager for its help would pay (server/cli/__init__.py: the lazy pattern).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .common import machine, markdown_table, report

__all__ = ["COMMANDS", "main", "measure"]


def _memgate() -> list[str]:
    script = Path(sys.executable).parent / "memgate"
    return [str(script)] if script.exists() else [shutil.which("memgate") or "memgate"]


#: label -> argv (the first is the floor)
COMMANDS = {
    "python3 -c pass (floor)": [sys.executable, "-c", "pass"],
    "memgate --version": [*_memgate(), "--version"],
    "memgate --help": [*_memgate(), "--help"],
    "memgate fact --help": [*_memgate(), "fact", "--help"],
    "memgate serve --help": [*_memgate(), "serve", "--help"],
    "python3 -c 'import memgate.manager'": [sys.executable, "-c", "import memgate.manager"],
}


def _wall(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def measure(rounds: int) -> dict:
    floor_label = next(iter(COMMANDS))
    for argv in COMMANDS.values():  # one warm-up each: the page cache, .pyc files
        _wall(argv)
    walls: dict[str, list[float]] = {label: [] for label in COMMANDS}
    ratios: dict[str, list[float]] = {label: [] for label in COMMANDS}
    for _ in range(rounds):
        this_round = {label: _wall(argv) for label, argv in COMMANDS.items()}
        for label, seconds in this_round.items():
            walls[label].append(seconds)
            ratios[label].append(seconds / this_round[floor_label])
    return {
        "rounds": rounds,
        "commands": [
            {
                "command": label,
                "median_ms": round(1000 * statistics.median(walls[label]), 1),
                "max_ms": round(1000 * max(walls[label]), 1),
                "ratio_to_floor": round(statistics.median(ratios[label]), 2),
            }
            for label in COMMANDS
        ],
    }


def table(d: dict) -> str:
    return markdown_table(
        ["command", "median ms", "max ms", "x floor"],
        [[c["command"], c["median_ms"], c["max_ms"], c["ratio_to_floor"]] for c in d["commands"]],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.startup", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    started, info = time.perf_counter(), machine()
    data = measure(args.rounds)
    data["machine"] = info
    report(
        "startup",
        "CLI start-up (whole processes, interleaved)",
        data,
        table(data),
        results=args.results,
        started=started,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
