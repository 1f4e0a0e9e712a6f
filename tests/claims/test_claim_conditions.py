"""A claim's conditions are a JSON object, from the CLI and from the manager; nothing else is stored."""

from __future__ import annotations

import os

import pytest
from backend_helpers import table_digest
from click.testing import CliRunner

from memgate.manager import ACME, InvalidArgument
from memgate.server.cli import cli


@pytest.mark.parametrize("conditions", ["[1]", '"str"', "3", "null", "true"])
def test_fact_set_refuses_conditions_that_are_not_a_json_object(
    conditions, sqlite_path, backend, two_tenants, monkeypatch
):
    for key in list(os.environ):
        if key.startswith("MEMGATE_"):
            monkeypatch.delenv(key)
    before = table_digest(backend)
    result = CliRunner().invoke(
        cli, ["--db", str(sqlite_path), "fact", "set", "s", "p", "v", "-t", "acme", "--conditions", conditions]
    )
    assert result.exit_code == 2
    assert (
        f'Invalid value for --conditions: must be a JSON object such as \'{{"dataset": "BEIR"}}\', got {conditions}'
    ) in result.output
    assert table_digest(backend) == before


@pytest.mark.parametrize("conditions", [[1], "str", 3, True])
def test_the_manager_refuses_conditions_that_are_not_an_object(conditions, manager, backend, two_tenants):
    before = table_digest(backend)
    with pytest.raises(InvalidArgument, match="conditions must be a JSON object, got ") as caught:
        manager.correct_entity(ACME, "s", "p", "v", content_json=conditions)
    assert caught.value.field == "content_json"
    assert table_digest(backend) == before


def test_an_object_is_stored_as_the_claims_conditions(manager, two_tenants):
    row = manager.correct_entity(ACME, "s", "p", "v", content_json={"dataset": "BEIR"})
    assert row["content_json"] == '{"dataset": "BEIR"}'
