"""The layout keeps its promises: no import cycles, layers import downward, capability folders, no stale notes."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: installed package -> the folder it comes from (pyproject's package-dir)
PACKAGES = {
    "memgate": ROOT / "src" / "memgate",
    "memgate.manager": ROOT / "manager",
    "memgate.toolbox": ROOT / "toolbox",
    "memgate.server": ROOT / "server",
}
SHARED_LEAVES = {
    "__init__.py",
    "errors.py",
    "identity.py",
    "limits.py",
    "clock.py",
    "ids.py",
    "tokens.py",
    "heap.py",
    "operator.py",
}
#: manager/'s capability folders: the storage seam below them may import none of them
CAPABILITIES = (
    "claims",
    "context",
    "conversations",
    "files",
    "kb",
    "links",
    "output",
    "promotion",
    "query",
    "registry",
    "retention",
    "tenancy",
    "demo",
)


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


MODULES = _modules()


def _imports(module: str, path: Path) -> set[str]:
    """Every memgate module `module` imports, at any depth of its code (lazy imports count too)."""
    is_package = path.name == "__init__.py"
    base = module.split(".") if is_package else module.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = base[: len(base) - (node.level - 1)]
                source = ".".join(anchor + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in MODULES else source for a in node.names]
        else:
            continue
        out |= {t for t in targets if t in MODULES and t != module}
    return out


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def test_the_package_imports_have_no_cycle():
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(GRAPH[m]):
            if state.get(n) == 1:
                cycle = stack[stack.index(n) :] + [n]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(GRAPH):
        if m not in state:
            visit(m)


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [
        ("memgate.manager", ("memgate.toolbox", "memgate.server")),
        ("memgate.toolbox", ("memgate.server",)),
    ],
)
def test_layers_import_only_downward(layer, forbidden):
    bad = sorted(
        f"{m} -> {n}" for m, deps in GRAPH.items() if m.startswith(layer) for n in deps if n.startswith(forbidden)
    )
    assert bad == []


def test_server_and_toolbox_use_the_manager_only_through_its_package():
    bad = sorted(
        f"{m} -> {n}"
        for m, deps in GRAPH.items()
        if m.startswith(("memgate.toolbox", "memgate.server"))
        for n in deps
        if n.startswith("memgate.manager.")
    )
    assert bad == []


def test_the_backend_imports_no_capability_folder():
    """manager/backend/ is the storage seam under the capabilities: it may use the shared leaves
    (errors, identity, limits, clock, ids, tokens) and itself, never a capability folder."""
    capability = tuple(f"memgate.manager.{c}" for c in CAPABILITIES)
    bad = sorted(
        f"{m} -> {n}"
        for m, deps in GRAPH.items()
        if m.startswith("memgate.manager.backend")
        for n in deps
        if n in capability or n.startswith(tuple(c + "." for c in capability)) or n.startswith("memgate.manager.facade")
    )
    assert bad == []
    assert set(CAPABILITIES) == {p.name for p in (ROOT / "manager").iterdir() if (p / "__init__.py").is_file()} - {
        "backend",
        "facade",
    }


def test_memory_manager_has_no_operator_method():
    """Tool handlers call MemoryManager's methods; none of them may read or write outside the wall."""
    from memgate.manager import MemoryManager

    assert [name for name in dir(MemoryManager) if "operator" in name] == []
    for path in (ROOT / "manager" / "facade").glob("*.py"):
        assert "operator_session" not in path.read_text(), path


def test_every_handler_calls_a_walled_memory_manager_method():
    """A handler reaches the manager by method name (dispatch's getattr): each names one of MemoryManager's."""
    from memgate.manager import MemoryManager
    from memgate.toolbox.handlers import HANDLERS

    methods = {name: spec.method for name, spec in HANDLERS.items()}
    assert methods and all(callable(getattr(MemoryManager, m, None)) for m in methods.values()), methods
    assert [m for m in methods.values() if "operator" in m or m.startswith("_")] == []


def _names(path: Path) -> set[str]:
    """Every identifier and attribute name a module's code uses (imports included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.add(node.name.rsplit(".", 1)[-1])
    return names


def test_only_the_cli_holds_the_operator_manager():
    """The OperatorManager reads and writes across tenants: only server/cli/ may name it. The server
    proper holds the ServerGate (three pre-tenant lookups); the toolbox holds neither, nor a session."""
    bad = []
    for module, path in MODULES.items():
        if not module.startswith(("memgate.toolbox", "memgate.server")) or module.startswith("memgate.server.cli"):
            continue
        names = _names(path)
        forbidden = {"OperatorManager", "operator_session", "unwalled_connection"}
        if module.startswith("memgate.toolbox"):
            forbidden |= {"ServerGate"}
        bad += [f"{module}: {name}" for name in sorted(names & forbidden)]
    assert bad == []


def test_only_shared_leaves_sit_directly_in_manager():
    assert sorted(p.name for p in (ROOT / "manager").glob("*.py") if p.name not in SHARED_LEAVES) == []


def test_every_capability_folder_says_what_it_owns():
    for init in (ROOT / "manager").rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc and len(doc) > 40, f"{init.relative_to(ROOT)} needs a docstring saying what it owns"


def _tracked(*patterns: str) -> list[str]:
    """The files git knows or would add (tracked plus untracked, ignored ones left out) that exist now."""
    done = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", *patterns],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted({p for p in done.stdout.split() if (ROOT / p).is_file()})


def test_no_comment_says_which_issue_built_it():
    hits = []
    for rel in _tracked("server", "manager", "toolbox", "sql", "src"):
        text = (ROOT / rel).read_text(errors="replace")
        hits += [f"{rel}:{n}" for n, line in enumerate(text.splitlines(), 1) if re.search(r"issue [0-9]", line)]
    assert hits == []


def test_only_the_factory_and_the_sqlite_backend_name_the_sqlite_backend_class():
    named = {rel for rel in _tracked("*.py") if "SqliteBackend" in (ROOT / rel).read_text()}
    named.discard("tests/project/test_layout.py")
    assert named == {"manager/backend/factory.py", "manager/backend/sqlite/backend.py"}


#: a repository path as comments and docstrings cite it
_CITED_PATH = re.compile(r"(?<![\w./-])((?:manager|toolbox|server|sql|config|tests|bench|docs|src)/[\w./*<>{}-]*[\w*])")


def test_comments_cite_only_files_that_exist():
    tracked = set(_tracked())
    folders = {str(Path(t).parent) for t in tracked} | {str(p) for t in tracked for p in Path(t).parents}
    missing = []
    for rel in _tracked("*.py", "*.sql", "*.toml"):
        for n, line in enumerate((ROOT / rel).read_text().splitlines(), 1):
            for cited in _CITED_PATH.findall(line):
                cited = cited.rstrip(".")
                if any(mark in cited for mark in ("<", "{", "*", "NNN")):
                    continue  # a pattern (sql/<dialect>/..., operator_*.sql), not one file
                if cited not in tracked and cited.rstrip("/") not in folders:
                    missing.append(f"{rel}:{n}: {cited}")
    assert missing == []


def _architecture_tree() -> list[str]:
    """The paths the layout tree in docs/architecture.md lists, from its ``` block under "## Layout"."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    paths, stack = [], []
    for line in block.splitlines():
        if not line.strip():
            continue
        name = line.strip().split()[0]
        depth = (len(line) - len(line.lstrip())) // 2
        stack = stack[:depth] + [name]
        paths.append("".join(stack))
    return paths


def test_the_architecture_tree_matches_the_files_in_git():
    listed = _architecture_tree()
    tracked = set(_tracked())
    folders = {str(p) + "/" for t in tracked for p in Path(t).parents}
    assert [p for p in listed if p not in tracked and p not in folders] == [], "listed but not in git"
    described = {p for p in listed if not p.endswith("/")}
    python = {t for t in tracked if t.endswith(".py") and t.startswith(("manager/", "toolbox/", "server/", "src/"))}
    assert sorted(python - described) == [], "Python modules missing from docs/architecture.md's tree"
