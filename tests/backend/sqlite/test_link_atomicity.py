"""SQLite specifics of the correction's link: when the link cannot be written, the correction is not either."""

from __future__ import annotations

import pytest

from memgate.manager import InvalidArgument


def test_a_correction_whose_link_fails_leaves_the_old_version_current(manager, backend, two_tenants):
    acme, _ = two_tenants
    # A real failure after the close and the insert of version 3: the link's base table refuses it.
    with backend.unwalled_connection() as conn:
        conn.execute(
            "CREATE TRIGGER fail_link BEFORE INSERT ON base_memory_link"
            " BEGIN SELECT RAISE(ABORT, 'disk full (simulated)'); END"
        )
    with pytest.raises(InvalidArgument, match="^the record is incomplete or malformed$"):
        manager.correct_entity(acme, "model:helios-rag", "beir_ndcg10", "0.81")
    claims, _ = manager.lookup_claims(acme, "model:helios-rag", "beir_ndcg10")
    current = claims[0].current
    assert (current.row["content"], current.version, current.row["valid_until"]) == ("0.78", 2, None)
    with backend.unwalled_connection() as conn:
        assert conn.execute("SELECT count(*) FROM base_entity_memory WHERE version = 3").fetchone()[0] == 0
