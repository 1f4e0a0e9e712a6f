"""The README's promises: two set-up commands first, and CI runs the same test command."""

from __future__ import annotations

import os
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


def test_the_docs_name_no_design_file_as_if_the_repository_held_one():
    """The design note lives beside the checkouts (../shared/design.md), not in the repository."""
    import re

    from doc_helpers import doc_pages

    named = {m for page in doc_pages() for m in re.findall(r"[\w./-]*design\.md", page.read_text())}
    assert named <= {"../shared/design.md"}
    assert not (ROOT / "design.md").exists() and not (ROOT / "docs" / "design.md").exists()


def test_the_readme_demo_run_in_order_ends_on_a_step_that_shows_something(tmp_path, monkeypatch):
    """Run as a newcomer runs it (fresh database, in order), the demo's last step has something to show:
    `memgate log` would not (the demo's commands are the operator's, not tool calls)."""
    import shlex

    from click.testing import CliRunner
    from doc_helpers import README

    from memgate.server.cli import cli

    for key in [k for k in os.environ if k.startswith("MEMGATE_")]:
        monkeypatch.delenv(key)
    demo = README.read_text().split("## Try the demo", 1)[1].split("```", 2)[1]
    steps = [line.split("  #")[0].strip() for line in demo.splitlines() if line.startswith("memgate ")]
    db = tmp_path / "memgate.db"
    for step in steps:
        result = CliRunner().invoke(cli, ["--db", str(db), *shlex.split(step)[1:]])
        assert result.exit_code == 0, (step, result.output)
    last = result.stdout
    assert len(last.splitlines()) > 5 and "(no " not in last, last


def test_the_install_section_leads_with_what_works_from_a_checkout():
    """memgate-mcp is not on PyPI: the commands shown install this checkout; the PyPI route is said to
    work once published (tests/project/test_newcomer.py runs the commands)."""
    from doc_helpers import README

    section = README.read_text().split("## Install", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#")[0].strip() for line in section.split("```", 2)[1].splitlines() if line.strip()]
    assert commands == ["pipx install .", "uvx --from . memgate serve --demo"]
    assert "not on PyPI yet" in section and "Once `memgate-mcp` is published on PyPI" in section


def test_the_readme_says_what_the_test_command_costs_and_gives_the_quick_subset():
    from doc_helpers import README
    from repo_helpers import QUICK

    text = README.read_text()
    head = " ".join(text.split("# memgate", 1)[0].split())
    assert "about 8 minutes on 2 quiet cores" in head and "`python3 -m pytest -q -m quick`" in head
    assert all((ROOT / f).is_file() for f in QUICK)
    import tomllib

    markers = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert {m.split(":")[0] for m in markers["markers"]} >= {"quick", "slow"}
