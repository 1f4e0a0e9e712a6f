"""Tiny zips shaped like LoCoMo's, for the tests of the bench modules that read it (LoCoMo itself is never
read by a test): three sessions of two speakers' filler turns, which each test then edits to place its
question, its evidence and its qa."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

FILLER = [
    "The weather was grey all day.",
    "My cat knocked over a plant.",
    "Traffic on the bridge was awful.",
    "I finally fixed the kitchen tap.",
    "The library extended its hours.",
    "We watched a film about penguins.",
]


def filler_sample(a: str, b: str, turns: int, sessions: int = 3) -> dict:
    """A LoCoMo sample of `sessions` sessions of `turns` filler turns each, `a` and `b` taking turns; no qa."""
    sample: dict = {"speaker_a": a, "speaker_b": b}
    for s in range(1, sessions + 1):
        sample[f"session_{s}_date_time"] = f"1:56 pm on {s + 7} May, 2023"
        sample[f"session_{s}"] = [
            {"speaker": (a, b)[n % 2], "dia_id": f"D{s}:{n + 1}", "text": FILLER[(n + s) % turns]} for n in range(turns)
        ]
    return sample


def write_zip(path: Path, samples: dict[str, dict]) -> Path:
    """`samples` (member name -> sample) written as one zip at `path`."""
    with zipfile.ZipFile(path, "w") as z:
        for name, sample in samples.items():
            z.writestr(name, json.dumps(sample))
    return path
