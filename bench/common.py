"""What every benchmark shares: the machine it ran on, percentiles, a markdown table, the JSON it writes."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["RESULTS", "machine", "markdown_table", "percentile", "report", "summary_ms", "write_result"]

#: where each benchmark writes its JSON (committed: docs/benchmarks.md's tables come from these)
RESULTS = Path(__file__).resolve().parent / "results"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine() -> dict:
    """The machine and how busy it was: figures from a shared machine are read with its load average."""
    load = os.getloadavg()
    return {
        "nproc": os.cpu_count(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "load_average": [round(x, 2) for x in load],
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
        "measured_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def percentile(values: Sequence[float], p: float) -> float:
    """The nearest-rank percentile (p in 0..100) of `values`."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(round(p / 100 * len(ordered) + 0.5 - 1e-9))))
    return ordered[rank - 1]


def summary_ms(values_ms: Sequence[float]) -> dict:
    """p50 and p95 of millisecond timings, rounded for a table."""
    return {
        "p50_ms": round(statistics.median(values_ms), 2),
        "p95_ms": round(percentile(values_ms, 95), 2),
        "n": len(values_ms),
    }


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def machine_line(info: dict) -> str:
    return (
        f"Machine: {info['nproc']} cores, {info['cpu']}, Python {info['python']}; load average "
        f"{' / '.join(str(x) for x in info['load_average'])} (1/5/15 min) at start"
    )


def write_result(name: str, data: dict, results: Path | None = None) -> Path:
    folder = results or RESULTS
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


def report(
    name: str, title: str, data: dict, table: str, *, results: Path | None = None, started: float | None = None
) -> str:
    """Print the table under its title and the machine line, and write the JSON; returns the printed text."""
    if started is not None:
        data["seconds"] = round(time.perf_counter() - started, 1)
    data.setdefault("machine", machine())
    data["machine"]["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    text = f"## {title}\n\n{machine_line(data['machine'])}\n\n{table}\n"
    print(text, flush=True)
    path = write_result(name, data, results)
    print(f"(written to {path})", flush=True)
    return text
