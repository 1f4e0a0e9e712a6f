"""Where the project's documentation lives: the short README and the pages in docs/ beside it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def doc_pages() -> list[Path]:
    """The README first, then every page in docs/, in name order."""
    return [README, *sorted(DOCS.glob("*.md"))]


def doc_text(name: str) -> str:
    """One page's text: "README" or a docs/ page's stem ("oracle", "hosts", ...)."""
    path = README if name == "README" else DOCS / f"{name}.md"
    return path.read_text(encoding="utf-8")


def all_doc_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in doc_pages())
