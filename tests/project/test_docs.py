"""The README's promises: two set-up commands first, and CI runs the same test command."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert lines[0] == "```", "README.md must open with the set-up commands"
    end = lines.index("```", 1)
    return lines[1:end]


def test_readme_opens_with_the_run_command_then_the_test_command():
    run, test = _readme_commands()
    assert run.endswith("python3 -m memgate serve --demo")
    assert test.endswith("python3 -m pytest -q")


def test_ci_runs_the_readme_test_command():
    _, test = _readme_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test in ci


def test_the_example_config_loads_and_names_only_real_settings():
    from memgate.server.settings import load_settings

    settings = load_settings(ROOT / "config" / "memgate.example.toml")
    assert settings.caps.max_rows == 500


def test_the_readme_fits_a_newcomer_and_links_every_docs_page():
    from doc_helpers import DOCS, README

    text = README.read_text()
    assert len(text.splitlines()) <= 250, "README.md is for one screen and a table of links: move detail into docs/"
    unlinked = [p.name for p in sorted(DOCS.glob("*.md")) if f"](docs/{p.name}" not in text]
    assert unlinked == [], f"docs pages the README does not link: {unlinked}"


def test_every_relative_link_in_the_docs_names_a_file_that_exists():
    import re

    from doc_helpers import doc_pages

    broken = []
    for page in doc_pages():
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []
