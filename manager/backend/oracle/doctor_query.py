"""`memgate doctor`'s checks of the query account (MEMGATE_QUERY), judged from recorded rows.

What execute_query needs of the account is read from the install scripts (expected()): the
synonyms 015 creates in its schema (the logical names a model's query uses), and the temporary
tablespace 010 gives it. What it has is read as the account itself (schema.py): USER_SYNONYMS,
USER_USERS.TEMPORARY_TABLESPACE, SYS_CONTEXT('USERENV', 'CLOUD_SERVICE') (set on Autonomous AI
Database), and MEMGATE_QCTX's tenant under a probe handle just after the app's hand-over and just
after it is taken back. DB_CREATE_FILE_DEST (Oracle-managed files), read as the owner or a DBA
where it may be read, goes into the temporary tablespace's fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..base import InstallCheck
from ..sql_files import list_sql, load_sql
from . import install

__all__ = ["PROBE_TENANT", "QueryAccount", "QueryExpected", "expected", "judge"]

#: the tenant the doctor's probe identity names (it writes no row)
PROBE_TENANT = "memgate-doctor"
_SYNONYM = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?SYNONYM\s+memgate_query\.(\w+)\s+FOR\s+(\w+)\.(\w+)",
    re.IGNORECASE | re.MULTILINE,
)
_TEMP = re.compile(r"\bALTER\s+USER\s+memgate_query\s+TEMPORARY\s+TABLESPACE\s+(\w+)", re.IGNORECASE)
_DBA_FIX = "As a DBA run sql/oracle/install/{file} (or `memgate init` with [database] admin_user)"


@dataclass(frozen=True)
class QueryExpected:
    #: synonym -> "OWNER.OBJECT" it must name (upper case)
    synonyms: dict[str, str]
    temporary_tablespace: str


@dataclass(frozen=True)
class QueryAccount:
    """What the query account's session returned; None where a read failed or did not run."""

    #: why the account could not be checked at all (no password, login refused), else None
    error: str | None = None
    #: USER_SYNONYMS: synonym_name, table_owner, table_name
    synonyms: Sequence[Mapping[str, str]] = ()
    #: USER_USERS.TEMPORARY_TABLESPACE
    temporary_tablespace: str | None = None
    #: SYS_CONTEXT('USERENV', 'CLOUD_SERVICE'): set on Autonomous AI Database, None elsewhere
    cloud_service: str | None = None
    #: MEMGATE_QCTX's TENANT under the probe handle after share_with_query, and after unshare_with_query
    handed_over: str | None = None
    left_behind: str | None = None
    #: the error of those reads (SET_IDENTIFIER or the SYS_CONTEXT read), None when they ran
    read_error: str | None = None
    #: DB_CREATE_FILE_DEST: "" when not set, None when it could not be read
    omf_destination: str | None = None


def expected() -> QueryExpected:
    """The synonyms and the temporary tablespace the install files give MEMGATE_QUERY."""
    synonyms: dict[str, str] = {}
    temp = ""
    for name in list_sql("oracle", "install"):
        text = load_sql("oracle", f"install/{name}")
        for unit in install.script_units(text):
            code = "\n".join(line for line in unit.splitlines() if not line.lstrip().startswith("--"))
            for syn, owner, target in _SYNONYM.findall(code):
                synonyms[syn.upper()] = f"{owner.upper()}.{target.upper()}"
            if found := _TEMP.search(code):
                temp = found.group(1).upper()
    return QueryExpected(synonyms, temp)


def judge(recorded: QueryAccount | None, want: QueryExpected) -> list[InstallCheck]:
    if recorded is None:
        return []
    if recorded.error is not None:
        return [
            InstallCheck(
                "query account",
                None,
                f"not checked: {recorded.error}. execute_query runs as MEMGATE_QUERY; its synonyms, "
                "temporary tablespace and identity hand-over are checked only by logging in as it.",
                "Set MEMGATE_ORACLE_QUERY_PASSWORD (the server needs it for execute_query too) and run "
                "`memgate doctor` again.",
            )
        ]
    return [*_synonyms(recorded, want), _temporary_tablespace(recorded, want), *_handover(recorded)]


def _synonyms(recorded: QueryAccount, want: QueryExpected) -> list[InstallCheck]:
    have = {
        r["synonym_name"].upper(): f"{(r.get('table_owner') or '').upper()}.{(r.get('table_name') or '').upper()}"
        for r in recorded.synonyms
    }
    missing = sorted(s for s in want.synonyms if s not in have)
    wrong = sorted(f"{s} -> {have[s]}" for s, target in want.synonyms.items() if s in have and have[s] != target)
    if not missing and not wrong:
        return [InstallCheck("query synonyms", True, f"{len(want.synonyms)} present in MEMGATE_QUERY's schema")]
    said = []
    if missing:
        said.append(f"missing: {', '.join(s.lower() for s in missing)} (execute_query gets ORA-00942 for each)")
    if wrong:
        said.append(f"naming something else: {', '.join(wrong)}")
    return [
        InstallCheck(
            "query synonyms",
            False,
            "MEMGATE_QUERY's synonyms " + "; ".join(said) + ".",
            _DBA_FIX.format(file="015_query_synonyms.sql")
            + ": it creates or replaces every synonym, each FOR memgate_owner.qv_<view>.",
        )
    ]


def _temporary_tablespace(recorded: QueryAccount, want: QueryExpected) -> InstallCheck:
    have = (recorded.temporary_tablespace or "").upper()
    if have == want.temporary_tablespace:
        return InstallCheck("query temporary tablespace", True, f"{have}: execute_query's sorts stop at its size")
    if recorded.cloud_service:
        return InstallCheck(
            "query temporary tablespace",
            None,
            f"{have or 'unknown'} on Autonomous AI Database ({recorded.cloud_service}), which creates no tablespace "
            "for memgate: the service bounds execute_query's temporary space, not caps.query_temp_total_mb.",
        )
    destination = recorded.omf_destination
    if destination:
        omf = f"DB_CREATE_FILE_DEST is {destination}: Oracle-managed files, so DEFINE memgate_query_temp_file = auto."
    elif destination == "":
        omf = (
            "DB_CREATE_FILE_DEST is not set (no Oracle-managed files): with memgate_query_temp_file = auto 010 puts "
            "the file next to TEMP's first tempfile; or DEFINE memgate_query_temp_file = '/path/memgate_query_temp01.dbf'."
        )
    else:
        omf = (
            "Check DB_CREATE_FILE_DEST first (SHOW PARAMETER db_create_file_dest): with it set, "
            "memgate_query_temp_file = auto; without it, auto puts the file next to TEMP's, or DEFINE "
            "memgate_query_temp_file = '/path/memgate_query_temp01.dbf'."
        )
    return InstallCheck(
        "query temporary tablespace",
        False,
        f"MEMGATE_QUERY's temporary tablespace is {have or 'unknown'}, not {want.temporary_tablespace}: "
        "execute_query's sorts can fill the temporary space every session shares.",
        _DBA_FIX.format(file="010_accounts.sql") + " with memgate_query_temp_mb and memgate_query_temp_file "
        f"DEFINEd. {omf}",
    )


def _handover(recorded: QueryAccount) -> list[InstallCheck]:
    if recorded.read_error is not None:
        return [
            InstallCheck(
                "query identity hand-over",
                False,
                f"a MEMGATE_QUERY session could not read MEMGATE_QCTX under the probe handle ({recorded.read_error}).",
                "Check that MEMGATE_QUERY has CREATE SESSION (010) and run `memgate doctor` again.",
            )
        ]
    if recorded.handed_over != PROBE_TENANT:
        return [
            InstallCheck(
                "query identity hand-over",
                False,
                f"a MEMGATE_QUERY session under the probe handle read tenant {recorded.handed_over!r}, not "
                f"{PROBE_TENANT!r}: execute_query's VPD predicate would match no row.",
                "Run `memgate init` again (030 creates MEMGATE_QCTX ACCESSED GLOBALLY and memgate_ctx_pkg); "
                "see docs/oracle.md, unverified until first contact.",
            )
        ]
    if recorded.left_behind is not None:
        return [
            InstallCheck(
                "query identity hand-over",
                False,
                "after unshare_with_query the MEMGATE_QUERY session still read the probe tenant: "
                "DBMS_SESSION.CLEAR_CONTEXT by client identifier did not clear values set for username "
                "MEMGATE_QUERY, so every execute_query leaves its identity in the SGA (under a random handle "
                "nobody reuses).",
                "Report it (docs/oracle.md, unverified until first contact). Until it is fixed, a DBA's "
                "ALTER SYSTEM FLUSH GLOBAL_CONTEXT clears the leftovers (and any execute_query running then).",
            )
        ]
    return [
        InstallCheck(
            "query identity hand-over",
            True,
            "a query session saw the handed-over identity, and not after it was taken back",
        )
    ]
