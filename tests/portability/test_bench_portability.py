"""`python3 -m bench portability` runs end to end at a tiny size, prints its table and writes its JSON."""

from __future__ import annotations

import json

from bench import portability


def test_the_portability_bench_measures_export_import_and_consolidation(tmp_path, capsys):
    assert portability.main(["--rows", "600", "--memories", "12", "--results", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "portability.json").read_text())
    out = capsys.readouterr().out
    assert "Portability" in out and "load average" in out
    assert set(data["export"]) == {"120", "600"} and all(v["peak_traced_mb"] > 0 for v in data["export"].values())
    assert data["import"]["decisions"]["promoted"] == 12 and data["import"]["ratio_to_floor"] > 0
    assert data["consolidation"]["precision"] >= 0.9 and data["consolidation"]["recall"] >= 0.9
