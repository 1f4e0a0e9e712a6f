"""The Oracle Text index of chunks (sql/oracle/install/023_text_index.sql), read statically.

- its FILTER BY columns fit SDATA's 249 bytes (DRG-11309 otherwise), the check every install file
  gets from test_static_first_contact.py, here on this one index by name;
- a second run after a failed one makes the index again: an index that is there but not VALID
  (a refused CREATE INDEX leaves it FAILED) is dropped, FORCE only when a plain DROP fails, before
  the create that runs when the index is missing; a VALID index is left as it is;
- a table an earlier schema made with a 256-byte tenant_id is narrowed to 020's width before the create.
"""

from __future__ import annotations

import re
from pathlib import Path

import first_contact

from memgate.manager.backend.oracle.install import script_units

INSTALL = Path(__file__).resolve().parents[3] / "sql" / "oracle" / "install"


def _index_block() -> str:
    units = [
        u for u in script_units((INSTALL / "023_text_index.sql").read_text(encoding="utf-8")) if "CTXSYS.CONTEXT" in u
    ]
    assert len(units) == 1
    return " ".join(first_contact.strip_comments(units[0]).split())


def test_the_text_index_filters_by_tenant_only_and_tenant_id_fits_sdata():
    schema = first_contact.install_schema()
    (found,) = [
        f
        for path in sorted(INSTALL.glob("*.sql"))
        for f in first_contact.filter_by_columns(path.read_text())
        if f.index == "kb_chunk_text_ix"
    ]
    assert (found.index, found.table, found.columns) == ("kb_chunk_text_ix", "knowledge_base_chunk", ("tenant_id",))
    assert schema["knowledge_base_chunk"]["tenant_id"].max_bytes == 200


def test_an_index_that_is_not_valid_is_dropped_before_the_create_and_a_valid_one_is_kept():
    block = _index_block()
    not_valid = re.search(
        r"SELECT COUNT\(\*\) INTO n FROM user_indexes WHERE index_name = 'KB_CHUNK_TEXT_IX' AND \(status <> 'VALID' "
        r"OR NVL\(domidx_status, 'VALID'\) <> 'VALID' OR NVL\(domidx_opstatus, 'VALID'\) <> 'VALID'\); IF n > 0 THEN",
        block,
    )
    assert not_valid, "023 must find an index that is there but not VALID"
    drop = re.search(
        r"EXECUTE IMMEDIATE 'DROP INDEX kb_chunk_text_ix'; EXCEPTION WHEN OTHERS THEN "
        r"EXECUTE IMMEDIATE 'DROP INDEX kb_chunk_text_ix FORCE';",
        block,
    )
    assert drop and drop.start() > not_valid.end(), "drop it, with FORCE only when the plain DROP fails"
    create = block.index("CREATE INDEX kb_chunk_text_ix")
    missing = block.rindex(
        "SELECT COUNT(*) INTO n FROM user_indexes WHERE index_name = 'KB_CHUNK_TEXT_IX'; IF n = 0 THEN"
    )
    assert drop.end() < missing < create, "the create runs only when no index is left"


def test_an_older_wider_tenant_id_is_narrowed_to_the_schemas_width_before_the_create():
    block = _index_block()
    narrow = re.search(r"ALTER TABLE knowledge_base_chunk MODIFY \(tenant_id (VARCHAR2\(\d+ BYTE\))\)", block)
    assert narrow and narrow.start() < block.index("CREATE INDEX kb_chunk_text_ix")
    declared = first_contact.install_schema()["knowledge_base_chunk"]["tenant_id"].type
    assert narrow.group(1) == declared
    assert "data_length > 200 OR char_used = 'C'" in block
