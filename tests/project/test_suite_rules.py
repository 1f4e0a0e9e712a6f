"""The suite's own house rules: every expected error names its type and says what it must say."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
BROAD = {"Exception", "BaseException"}


def _raises_calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "raises"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "pytest"
        ):
            yield node


def test_every_pytest_raises_has_a_specific_type_and_a_match():
    loose = []
    for path in sorted(TESTS.rglob("*.py")):
        for call in _raises_calls(path):
            types = call.args[0].elts if call.args and isinstance(call.args[0], ast.Tuple) else call.args[:1]
            broad = [t.id for t in types if isinstance(t, ast.Name) and t.id in BROAD]
            if broad or not any(k.arg == "match" for k in call.keywords):
                loose.append(f"{path.relative_to(TESTS)}:{call.lineno}")
    assert loose == []
