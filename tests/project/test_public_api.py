"""memgate uses only the public API of FastMCP and mcp, so both can be version ranges (pyproject.toml).

A private name (a module or attribute starting with "_") of either package may change in any patch
release; this test names the file and line that reaches for one, so the range can stay honest.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ("mcp", "mcp_types", "fastmcp")


def _private_upstream_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    upstream_names: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in UPSTREAM:
            parts = node.module.split(".") + [alias.name for alias in node.names]
            if any(part.startswith("_") for part in parts):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} from {node.module} import ...")
            upstream_names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in UPSTREAM:
                    if any(part.startswith("_") for part in alias.name.split(".")):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} import {alias.name}")
                    upstream_names.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and base.id in upstream_names:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {base.id}...{node.attr}")
    return found


def test_no_module_reaches_for_a_private_name_of_fastmcp_or_mcp():
    found = []
    for folder in ("server", "toolbox", "manager", "src"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            found += _private_upstream_uses(path)
    assert found == [], "private FastMCP/mcp names change without notice: use public API, or pin and say why"


def test_fastmcp_and_mcp_are_ranges_not_pins():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"fastmcp>=4.1.6,<5"' in text and '"mcp>=2.3,<3"' in text
