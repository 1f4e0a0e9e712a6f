"""024 replaces memory_link's system-named end checks (020's inline CHECKs) with named ones that admit
memory_candidate, read statically: the old checks are found by name and column, not by their text."""

from __future__ import annotations

import re
from pathlib import Path

from first_contact import strip_comments

from memgate.manager.backend.oracle.install import script_units

PROMOTION = Path(__file__).resolve().parents[3] / "sql" / "oracle" / "install" / "024_promotion.sql"


def _block() -> str:
    (unit,) = [u for u in script_units(PROMOTION.read_text(encoding="utf-8")) if "MEMORY_LINK_' || e.col" in u]
    return " ".join(strip_comments(unit).split())


def test_old_end_checks_are_found_by_generated_name_and_their_one_column_never_by_text():
    block = _block()
    assert "search_condition" not in block.lower()
    assert "k.constraint_type = 'C' AND k.generated = 'GENERATED NAME'" in block
    assert re.search(
        r"EXISTS \(SELECT 1 FROM user_cons_columns u WHERE u.constraint_name = k.constraint_name AND u.column_name = e.col\)",
        block,
    )
    assert re.search(
        r"NOT EXISTS \(SELECT 1 FROM user_cons_columns u WHERE u.constraint_name = k.constraint_name AND u.column_name <> e.col\)",
        block,
    )


def test_the_not_null_dropped_with_them_is_put_back_before_the_named_check_and_only_while_it_is_missing():
    block = _block()
    missing = block.index(
        "WHERE table_name = 'MEMORY_LINK' AND constraint_name = 'MEMORY_LINK_' || e.col || '_CK'; IF n = 0 THEN"
    )
    drop = block.index("'ALTER TABLE memory_link DROP CONSTRAINT \"' || c.constraint_name || '\"'")
    not_null = block.index("'ALTER TABLE memory_link MODIFY (' || e.col || ' NOT NULL)'")
    named = block.index("'ALTER TABLE memory_link ADD CONSTRAINT memory_link_' || e.col || '_ck CHECK ('")
    assert missing < drop < not_null < named
    assert "IF SQLCODE != -1442 THEN RAISE;" in block  # already NOT NULL is fine, anything else stops
    assert "'memory_candidate'" in block
