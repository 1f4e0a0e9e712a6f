"""`memgate doctor`'s post-install checks on Oracle, judged from recorded dictionary rows (no database).

The rows are what the DOCTOR_* reads return as the owner (USER_OBJECTS, USER_POLICIES, USER_INDEXES,
ALL_CONTEXT after binding a probe identity) and as the query account (USER_SYNONYMS, USER_USERS,
MEMGATE_QCTX under the probe handle), in python-oracledb's shape: lower-case keys, upper-case
names. A healthy install passes in four lines, and three for the query account; each broken object
fails on its own line with its fix.
"""

from __future__ import annotations

import pytest

from memgate.manager.backend.base import InstallCheck
from memgate.manager.backend.oracle import statements
from memgate.manager.backend.oracle.doctor import Recorded, expected, judge
from memgate.manager.backend.oracle.doctor_query import PROBE_TENANT, QueryAccount

WANT = expected()

#: USER_OBJECTS rows of a healthy install, as recorded: the packages, then every trigger and view
HEALTHY_OBJECTS = [
    {"object_name": "MEMGATE_CTX_PKG", "object_type": "PACKAGE", "status": "VALID"},
    {"object_name": "MEMGATE_CTX_PKG", "object_type": "PACKAGE BODY", "status": "VALID"},
    {"object_name": "MEMGATE_GUARD_PKG", "object_type": "PACKAGE", "status": "VALID"},
    {"object_name": "MEMGATE_GUARD_PKG", "object_type": "PACKAGE BODY", "status": "VALID"},
    {"object_name": "MEMGATE_VPD_PKG", "object_type": "PACKAGE", "status": "VALID"},
    {"object_name": "MEMGATE_VPD_PKG", "object_type": "PACKAGE BODY", "status": "VALID"},
    *(
        {"object_name": name, "object_type": kind, "status": "VALID"}
        for name, kind in sorted(WANT.objects)
        if kind in ("TRIGGER", "VIEW")
    ),
    # an object memgate does not make, valid: ignored
    {"object_name": "DR$KB_CHUNK_TEXT_IX$I", "object_type": "TABLE", "status": "VALID"},
]
HEALTHY_POLICIES = [{"object_name": t, "policy_name": "MEMGATE_WALL", "enable": "YES"} for t in WANT.policy_tables]
HEALTHY_INDEXES = [
    {"index_name": name, "status": "VALID", "domidx_status": "VALID", "domidx_opstatus": "VALID"}
    for name in ("KB_CHUNK_TEXT_IX", "CONVERSATION_RECALL_TEXT_IX")
]
HEALTHY_CONTEXTS = [{"namespace": "MEMGATE_CTX", "schema": "MEMGATE_OWNER", "package": "MEMGATE_CTX_PKG"}]


def recorded(**changes) -> Recorded:
    rows = {
        "objects": HEALTHY_OBJECTS,
        "policies": HEALTHY_POLICIES,
        "indexes": HEALTHY_INDEXES,
        "contexts": HEALTHY_CONTEXTS,
    }
    return Recorded(**{**rows, **changes})


def failing(checks: list[InstallCheck]) -> dict[str, InstallCheck]:
    return {c.name: c for c in checks if not c.ok}


def test_the_expected_objects_are_read_from_the_install_scripts():
    packages = {name for name, kind in WANT.objects if kind == "PACKAGE BODY"}
    assert packages == {"MEMGATE_CTX_PKG", "MEMGATE_GUARD_PKG", "MEMGATE_VPD_PKG"}
    assert ("GUIDELINE_MEMORY_GUARD", "TRIGGER") in WANT.objects and ("QV_ENTITY_MEMORY", "VIEW") in WANT.objects
    assert len(WANT.policy_tables) == 20 and {"CONVERSATION_RECALL", "MCP_CALL_CITED"} <= set(WANT.policy_tables)
    assert WANT.text_indexes == ("KB_CHUNK_TEXT_IX", "CONVERSATION_RECALL_TEXT_IX")
    assert WANT.index_files["CONVERSATION_RECALL_TEXT_IX"] == "026_conversations.sql"
    assert WANT.contexts == {
        "MEMGATE_CTX": ("MEMGATE_OWNER", "MEMGATE_CTX_PKG"),
        "MEMGATE_QCTX": ("MEMGATE_OWNER", "MEMGATE_CTX_PKG"),
    }
    assert {"DOCTOR_OBJECTS", "DOCTOR_POLICIES", "DOCTOR_TEXT_INDEXES", "DOCTOR_CONTEXTS"} <= set(statements.ALL)


def test_a_healthy_install_passes_in_one_line_per_kind():
    checks = judge(recorded(), WANT)
    assert [c for c in checks if not c.ok] == []
    assert [c.name for c in checks] == [
        "install objects",
        "VPD policies",
        "text index KB_CHUNK_TEXT_IX",
        "text index CONVERSATION_RECALL_TEXT_IX",
        "context namespaces",
    ]
    assert checks[0].detail == "43 VALID (package, package body, trigger, view)"


def test_a_package_body_that_did_not_compile_fails_with_where_to_read_why():
    """022's guard package as it was (DECODE in PL/SQL): created, INVALID, with a warning only."""
    objects = [
        {**r, "status": "INVALID"}
        if (r["object_name"], r["object_type"]) == ("MEMGATE_GUARD_PKG", "PACKAGE BODY")
        else r
        for r in HEALTHY_OBJECTS
    ]
    found = failing(judge(recorded(objects=objects), WANT))
    assert list(found) == ["package body MEMGATE_GUARD_PKG"]
    check = found["package body MEMGATE_GUARD_PKG"]
    assert "INVALID in USER_OBJECTS" in check.detail and "022_triggers.sql" in check.detail
    assert "USER_ERRORS (name = 'MEMGATE_GUARD_PKG')" in check.fix and "memgate init" in check.fix


def test_a_missing_trigger_and_a_stray_invalid_object_each_fail():
    objects = [r for r in HEALTHY_OBJECTS if r["object_name"] != "IMAGE_MEMORY_GUARD"]
    objects.append({"object_name": "OLD_HELPER", "object_type": "PACKAGE BODY", "status": "INVALID"})
    found = failing(judge(recorded(objects=objects), WANT))
    assert set(found) == {"trigger IMAGE_MEMORY_GUARD", "other objects"}
    assert found["trigger IMAGE_MEMORY_GUARD"].detail.startswith("missing: sql/oracle/install/022_triggers.sql")
    assert "package body OLD_HELPER" in found["other objects"].detail


def test_a_missing_or_disabled_policy_fails_per_table_with_its_fix():
    policies = [
        {**p, "enable": "NO"} if p["object_name"] == "MEMORY_LINK" else p
        for p in HEALTHY_POLICIES
        if p["object_name"] != "IMAGE_MEMORY"
    ]
    policies.append({"object_name": "IMAGE_MEMORY", "policy_name": "SOMETHING_ELSE", "enable": "YES"})
    found = failing(judge(recorded(policies=policies), WANT))
    assert set(found) == {"VPD policy on IMAGE_MEMORY", "VPD policy on MEMORY_LINK"}
    assert "040_vpd.sql" in found["VPD policy on IMAGE_MEMORY"].fix
    assert found["VPD policy on MEMORY_LINK"].fix == (
        "As MEMGATE_OWNER: EXEC DBMS_RLS.ENABLE_POLICY(USER, 'MEMORY_LINK', 'MEMGATE_WALL', TRUE)"
    )


@pytest.mark.parametrize(
    "indexes,says,fix",
    [
        (
            [
                {
                    "index_name": "KB_CHUNK_TEXT_IX",
                    "status": "VALID",
                    "domidx_status": "VALID",
                    "domidx_opstatus": "FAILED",
                }
            ],
            "DOMIDX_OPSTATUS = FAILED",
            "ALTER INDEX kb_chunk_text_ix REBUILD",
        ),
        (
            [{"index_name": "KB_CHUNK_TEXT_IX", "status": "UNUSABLE", "domidx_status": None, "domidx_opstatus": None}],
            "STATUS = UNUSABLE",
            "CTX_USER_INDEX_ERRORS",
        ),
        ([], "missing: sql/oracle/install/023_text_index.sql", "CTXAPP"),
    ],
)
def test_a_text_index_that_is_not_valid_or_missing_fails_with_its_fix(indexes, says, fix):
    recall = [i for i in HEALTHY_INDEXES if i["index_name"] == "CONVERSATION_RECALL_TEXT_IX"]
    found = failing(judge(recorded(indexes=[*indexes, *recall]), WANT))
    assert list(found) == ["text index KB_CHUNK_TEXT_IX"]
    assert says in found["text index KB_CHUNK_TEXT_IX"].detail and fix in found["text index KB_CHUNK_TEXT_IX"].fix


def test_a_text_index_left_failed_by_its_create_fails_with_rebuild_then_drop_and_023():
    """What a CREATE INDEX Oracle Text refused (DRG-11309) leaves behind: the index, marked FAILED."""
    indexes = [
        {"index_name": "KB_CHUNK_TEXT_IX", "status": "VALID", "domidx_status": "FAILED", "domidx_opstatus": "FAILED"}
    ]
    check = failing(judge(recorded(indexes=indexes), WANT))["text index KB_CHUNK_TEXT_IX"]
    assert "DOMIDX_STATUS = FAILED" in check.detail and "CREATE INDEX or a rebuild failed" in check.detail
    assert check.fix.index("CTX_USER_INDEX_ERRORS") < check.fix.index("REBUILD") < check.fix.index("DROP INDEX")
    assert "FORCE" in check.fix and "sql/oracle/install/023_text_index.sql" in check.fix


def test_contexts_fail_when_an_identity_cannot_be_bound_or_handed_over():
    # ORA-01031: DBMS_SESSION.SET_CONTEXT refuses a namespace that is missing or not USING the package
    found = failing(judge(recorded(contexts=[], identity_error="ORA-01031"), WANT))
    assert list(found) == ["context namespaces"]
    assert "ORA-01031" in found["context namespaces"].detail and "CREATE ANY CONTEXT" in found["context namespaces"].fix
    found = failing(judge(recorded(handover_error="ORA-01031"), WANT))
    assert list(found) == ["context MEMGATE_QCTX"] and "execute_query" in found["context MEMGATE_QCTX"].detail
    other = [{"namespace": "MEMGATE_CTX", "schema": "SOMEONE", "package": "EVIL_PKG"}]
    found = failing(judge(recorded(contexts=other), WANT))
    assert "MEMGATE_CTX USING SOMEONE.EVIL_PKG" in found["context MEMGATE_CTX"].detail
    found = failing(judge(recorded(contexts=[]), WANT))
    assert "ALL_CONTEXT shows no MEMGATE_CTX" in found["context MEMGATE_CTX"].detail


# -- the query account, as MEMGATE_QUERY's own session reads it (doctor_query.py) ----------------

#: USER_SYNONYMS as the query account, after 015: each logical name FOR memgate_owner.qv_<name>
HEALTHY_SYNONYMS = [
    {"synonym_name": name, "table_owner": "MEMGATE_OWNER", "table_name": f"QV_{name}"}
    for name in sorted(WANT.query.synonyms)
]
HEALTHY_QUERY = QueryAccount(
    synonyms=HEALTHY_SYNONYMS,
    temporary_tablespace="MEMGATE_QUERY_TEMP",
    handed_over=PROBE_TENANT,
    left_behind=None,
    omf_destination=None,
)


def query_checks(**changes) -> dict[str, InstallCheck]:
    account = QueryAccount(**{**HEALTHY_QUERY.__dict__, **changes})
    return {c.name: c for c in judge(recorded(query=account), WANT) if c.name.startswith("query")}


def test_the_query_accounts_synonyms_and_temporary_tablespace_are_read_from_the_install_scripts():
    assert WANT.query.synonyms["ENTITY_MEMORY"] == "MEMGATE_OWNER.QV_ENTITY_MEMORY"
    assert WANT.query.synonyms["MEMORY_CANDIDATE"] == "MEMGATE_OWNER.QV_MEMORY_CANDIDATE"
    assert len(WANT.query.synonyms) == 13 and WANT.query.temporary_tablespace == "MEMGATE_QUERY_TEMP"
    assert {"DOCTOR_QUERY_SYNONYMS", "DOCTOR_QUERY_TEMP", "DOCTOR_QUERY_TENANT", "DOCTOR_OMF"} <= set(statements.ALL)


def test_a_healthy_query_account_passes_in_three_lines():
    checks = query_checks()
    assert [(c.name, c.ok) for c in checks.values()] == [
        ("query synonyms", True),
        ("query temporary tablespace", True),
        ("query identity hand-over", True),
    ]
    assert checks["query synonyms"].detail == "13 present in MEMGATE_QUERY's schema"


def test_missing_or_misdirected_synonyms_fail_with_015_as_the_fix():
    """015 never ran (the Free setup script as it was: 010 failed first): no synonym at all."""
    check = query_checks(synonyms=[])["query synonyms"]
    assert check.ok is False and "missing: conversation_memory, entity_memory" in check.detail
    assert "ORA-00942" in check.detail and "015_query_synonyms.sql" in check.fix and "admin_user" in check.fix
    misdirected = [
        {**r, "table_owner": "SCOTT"} if r["synonym_name"] == "ENTITY_MEMORY" else r for r in HEALTHY_SYNONYMS
    ]
    check = query_checks(synonyms=misdirected)["query synonyms"]
    assert check.detail.endswith("naming something else: ENTITY_MEMORY -> SCOTT.QV_ENTITY_MEMORY.")


@pytest.mark.parametrize(
    "omf,says",
    [
        ("/opt/oracle/oradata", "DB_CREATE_FILE_DEST is /opt/oracle/oradata: Oracle-managed files"),
        ("", "DB_CREATE_FILE_DEST is not set (no Oracle-managed files)"),
        (None, "Check DB_CREATE_FILE_DEST first (SHOW PARAMETER db_create_file_dest)"),
    ],
)
def test_a_query_account_on_the_shared_temp_fails_with_010_and_what_omf_says(omf, says):
    check = query_checks(temporary_tablespace="TEMP", omf_destination=omf)["query temporary tablespace"]
    assert check.ok is False and check.detail.startswith(
        "MEMGATE_QUERY's temporary tablespace is TEMP, not MEMGATE_QUERY_TEMP"
    )
    assert "010_accounts.sql" in check.fix and "memgate_query_temp_file" in check.fix and says in check.fix


def test_on_autonomous_the_services_temp_is_a_warning_not_a_failure():
    check = query_checks(temporary_tablespace="TEMP", cloud_service="OLTP")["query temporary tablespace"]
    assert check.ok is None and "Autonomous AI Database (OLTP)" in check.detail


def test_the_hand_over_fails_when_a_query_session_does_not_see_it_or_still_sees_it_after():
    unseen = query_checks(handed_over=None)["query identity hand-over"]
    assert unseen.ok is False and "would match no row" in unseen.detail
    left = query_checks(left_behind=PROBE_TENANT)["query identity hand-over"]
    assert left.ok is False and "CLEAR_CONTEXT by client identifier did not clear" in left.detail
    assert "unverified until first contact" in left.fix and "FLUSH GLOBAL_CONTEXT" in left.fix
    unread = query_checks(read_error="ORA-01031")["query identity hand-over"]
    assert unread.ok is False and "ORA-01031" in unread.detail


def test_without_the_query_password_its_checks_are_a_warning_that_says_why():
    checks = {
        c.name: c for c in judge(recorded(query=QueryAccount(error="MEMGATE_ORACLE_QUERY_PASSWORD is not set")), WANT)
    }
    check = checks["query account"]
    assert check.ok is None and "not checked: MEMGATE_ORACLE_QUERY_PASSWORD is not set" in check.detail
    assert "query synonyms" not in checks
