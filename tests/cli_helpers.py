"""Running the `memgate` CLI through click's runner on a test database, with no MEMGATE_* settings leaking in."""

from __future__ import annotations

import os

from click.testing import CliRunner, Result

from memgate.server.cli import cli


def cli_runner(sqlite_path, monkeypatch):
    """invoke(*args, ok=True, code=None) -> the click Result; asserts the exit status: exactly
    `code` when given, else 0 when ok and non-zero when not."""
    for key in list(os.environ):
        if key.startswith("MEMGATE_"):
            monkeypatch.delenv(key)

    def invoke(*args: str, ok: bool = True, code: int | None = None) -> Result:
        result = CliRunner().invoke(cli, ["--db", str(sqlite_path), *args], catch_exceptions=False)
        if code is not None:
            assert result.exit_code == code, result.output
        else:
            assert (result.exit_code == 0) == ok, result.output
        return result

    return invoke
