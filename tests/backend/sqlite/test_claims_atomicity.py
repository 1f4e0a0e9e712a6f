"""SQLite specifics of claims: a correction that fails half-way (a trigger refuses the insert)."""

from __future__ import annotations

import pytest

from memgate.manager import InvalidArgument


def _current(manager, identity, subject="model:helios-rag", predicate="beir_ndcg10"):
    claims, _ = manager.lookup_claims(identity, subject, predicate)
    return claims[0]


def test_a_failure_mid_correction_leaves_the_old_version_current(manager, backend, two_tenants):
    acme, _ = two_tenants
    # A real failure between "close version 2" and "insert version 3": the base
    # table refuses the insert after the close has already run in the transaction.
    with backend.unwalled_connection() as conn:
        conn.execute(
            "CREATE TRIGGER fail_v3 BEFORE INSERT ON base_entity_memory WHEN NEW.version = 3"
            " BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END"
        )
    with pytest.raises(InvalidArgument, match="^the record is incomplete or malformed$"):
        manager.correct_entity(acme, "model:helios-rag", "beir_ndcg10", "0.81")
    claim = _current(manager, acme)
    assert (claim.current.row["content"], claim.current.version, claim.current.row["valid_until"]) == ("0.78", 2, None)
    with backend.unwalled_connection() as conn:
        assert conn.execute("SELECT count(*) FROM base_entity_memory WHERE version = 3").fetchone()[0] == 0
