"""`memgate doctor`'s post-install checks on Oracle, judged from the rows the dictionary returned.

What an install makes is read from the owner's install scripts (expected()): each package,
package body, trigger and view created in sql/oracle/install/, the tables 040 puts the
MEMGATE_WALL policy on, the Oracle Text index 023 creates, the contexts 030 creates and the
package each is USING. What the database has is four reads as the owner (schema.py, the
DOCTOR_* statements): USER_OBJECTS, USER_POLICIES, USER_INDEXES, and ALL_CONTEXT after binding a
probe identity (plus a hand-over to the query context and back); and, as the query account,
what doctor_query.py judges (its synonyms, temporary tablespace, and the hand-over as a query
session sees it). Kept apart from the reads, the judging is unit-tested against recorded query
results, no database needed.

Each failing check names its fix. A package body that does not compile (022's DECODE, before
schema version 4) is the case that matters most: it is created INVALID, with a warning only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..base import InstallCheck
from ..sql_files import load_sql
from . import doctor_query, install
from .doctor_query import QueryAccount, QueryExpected

__all__ = ["Expected", "Recorded", "expected", "judge"]

POLICY = "MEMGATE_WALL"
_CREATED = re.compile(
    r"^\s*CREATE\s+OR\s+REPLACE\s+(PACKAGE\s+BODY|PACKAGE|TRIGGER|VIEW|CONTEXT)\s+(\w+)(?:\s+USING\s+(\w+)\.(\w+))?",
    re.IGNORECASE,
)
_TEXT_INDEX = re.compile(
    r"\bCREATE\s+INDEX\s+(\w+)\s+ON\s+\w+\s*\([^)]*\)\s+INDEXTYPE\s+IS\s+CTXSYS\.CONTEXT", re.IGNORECASE
)
_POLICY_TABLES = re.compile(r"c_tables\s+CONSTANT\s+t_names\s*:=\s*t_names\(([^)]*)\)", re.IGNORECASE)


@dataclass(frozen=True)
class Expected:
    """What the owner's install files create, by name (upper case, as the dictionary shows names)."""

    #: (object name, object type as USER_OBJECTS spells it) -> the install file that creates it
    objects: dict[tuple[str, str], str]
    #: the tables that carry the MEMGATE_WALL policy
    policy_tables: tuple[str, ...]
    text_indexes: tuple[str, ...]
    #: context namespace -> (schema, package) it is created USING
    contexts: dict[str, tuple[str, str]]
    #: the query account's synonyms and temporary tablespace (doctor_query.py)
    query: QueryExpected = field(default_factory=lambda: QueryExpected({}, ""))
    #: text index -> the install file that creates it
    index_files: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Recorded:
    """What the database returned: the rows of each read, as python-oracledb rows become dicts."""

    #: USER_OBJECTS: object_name, object_type, status
    objects: Sequence[Mapping[str, str]]
    #: USER_POLICIES: object_name, policy_name, enable
    policies: Sequence[Mapping[str, str]]
    #: USER_INDEXES of the domain indexes: index_name, status, domidx_status, domidx_opstatus
    indexes: Sequence[Mapping[str, str]]
    #: ALL_CONTEXT once a probe identity is bound: namespace, schema, package
    contexts: Sequence[Mapping[str, str]] = ()
    #: the error binding the probe identity raised (set_identity), None when it was bound
    identity_error: str | None = None
    #: the error handing the identity to the query context raised (share/unshare), None when it worked
    handover_error: str | None = None
    query_context: str = field(default="MEMGATE_QCTX")
    #: what the query account's own session returned (doctor_query.py); None: not read
    query: QueryAccount | None = None


def expected() -> Expected:
    """What sql/oracle/install/'s owner files create, read from the files themselves."""
    objects: dict[tuple[str, str], str] = {}
    contexts: dict[str, tuple[str, str]] = {}
    tables: tuple[str, ...] = ()
    indexes: list[str] = []
    index_files: dict[str, str] = {}
    for name in install.owner_files():
        text = load_sql("oracle", f"install/{name}")
        for unit in install.script_units(text):
            code = "\n".join(line for line in unit.splitlines() if not line.lstrip().startswith("--"))
            made = _CREATED.match(code)
            if made and made.group(1).upper() == "CONTEXT":
                contexts[made.group(2).upper()] = ((made.group(3) or "").upper(), (made.group(4) or "").upper())
            elif made:
                kind = " ".join(made.group(1).upper().split())
                objects[(made.group(2).upper(), kind)] = f"{name}.sql"
            for m in _TEXT_INDEX.findall(code):
                indexes.append(m.upper())
                index_files[m.upper()] = f"{name}.sql"
            policy = _POLICY_TABLES.search(code)
            if policy:
                tables = tuple(re.findall(r"'(\w+)'", policy.group(1)))
    return Expected(objects, tables, tuple(indexes), contexts, doctor_query.expected(), index_files)


def judge(recorded: Recorded, want: Expected) -> list[InstallCheck]:
    """One line per kind when all is well; one line per failing object, each with its fix."""
    return [
        *_objects(recorded, want),
        *_policies(recorded, want),
        *_text_indexes(recorded, want),
        *_contexts(recorded, want),
        *doctor_query.judge(recorded.query, want.query),
    ]


def _objects(recorded: Recorded, want: Expected) -> list[InstallCheck]:
    have = {(r["object_name"].upper(), r["object_type"].upper()): r["status"].upper() for r in recorded.objects}
    failing = []
    for (name, kind), file in sorted(want.objects.items()):
        status = have.get((name, kind))
        if status is None:
            failing.append(
                InstallCheck(
                    f"{kind.lower()} {name}",
                    False,
                    f"missing: sql/oracle/install/{file} creates it.",
                    "Run `memgate init` again (every install file is re-runnable) and read what it reports.",
                )
            )
        elif status != "VALID":
            failing.append(
                InstallCheck(
                    f"{kind.lower()} {name}",
                    False,
                    f"{status} in USER_OBJECTS: it did not compile (sql/oracle/install/{file}).",
                    f"As MEMGATE_OWNER read why in USER_ERRORS (name = '{name}'), fix the cause and run "
                    "`memgate init` again (or ALTER PACKAGE ... COMPILE for a package whose dependency was fixed).",
                )
            )
    invalid_others = sorted(
        f"{kind.lower()} {name}"
        for (name, kind), status in have.items()
        if status != "VALID"
        and (name, kind) not in want.objects
        and kind in {"PACKAGE", "PACKAGE BODY", "TRIGGER", "VIEW"}
    )
    if invalid_others:
        failing.append(
            InstallCheck(
                "other objects",
                False,
                f"INVALID in MEMGATE_OWNER's schema: {', '.join(invalid_others)}.",
                "memgate's install does not create them: drop them, or compile them, as MEMGATE_OWNER.",
            )
        )
    if failing:
        return failing
    kinds = sorted({kind.lower() for _, kind in want.objects})
    return [InstallCheck("install objects", True, f"{len(want.objects)} VALID ({', '.join(kinds)})")]


def _policies(recorded: Recorded, want: Expected) -> list[InstallCheck]:
    have = {
        r["object_name"].upper(): r.get("enable", "YES").upper()
        for r in recorded.policies
        if r["policy_name"].upper() == POLICY
    }
    failing = []
    for table in want.policy_tables:
        if table not in have:
            failing.append(
                InstallCheck(
                    f"VPD policy on {table}",
                    False,
                    f"USER_POLICIES has no {POLICY} policy on {table}: its rows are not walled by tenant and scope.",
                    "Run `memgate init` again (sql/oracle/install/040_vpd.sql adds every missing policy).",
                )
            )
        elif have[table] != "YES":
            failing.append(
                InstallCheck(
                    f"VPD policy on {table}",
                    False,
                    f"{POLICY} on {table} is disabled (USER_POLICIES.ENABLE = {have[table]}).",
                    f"As MEMGATE_OWNER: EXEC DBMS_RLS.ENABLE_POLICY(USER, '{table}', '{POLICY}', TRUE)",
                )
            )
    if failing:
        return failing
    return [InstallCheck("VPD policies", True, f"{POLICY} enabled on all {len(want.policy_tables)} tables")]


def _text_indexes(recorded: Recorded, want: Expected) -> list[InstallCheck]:
    have = {r["index_name"].upper(): r for r in recorded.indexes}
    checks = []
    for name in want.text_indexes:
        row = have.get(name)
        file = want.index_files.get(name, "023_text_index.sql")
        if row is None:
            checks.append(
                InstallCheck(
                    f"text index {name}",
                    False,
                    f"missing: sql/oracle/install/{file} creates it; lexical search finds nothing without it.",
                    f"Run `memgate init` again ({file[:3]} needs the CTXAPP role and EXECUTE on CTXSYS.CTX_DDL, 010).",
                )
            )
            continue
        states = {k: (row.get(k) or "").upper() for k in ("status", "domidx_status", "domidx_opstatus")}
        if any(v not in ("VALID", "") for v in states.values()) or states["status"] != "VALID":
            shown = ", ".join(f"{k.upper()} = {v or 'NULL'}" for k, v in states.items())
            failed = "FAILED" in states.values()
            checks.append(
                InstallCheck(
                    f"text index {name}",
                    False,
                    f"not usable ({shown} in USER_INDEXES)"
                    + (
                        ": its CREATE INDEX or a rebuild failed; lexical search fails until it is made again."
                        if failed
                        else "."
                    ),
                    f"As MEMGATE_OWNER read why in CTX_USER_INDEX_ERRORS, then ALTER INDEX {name.lower()} REBUILD. "
                    f"If that fails too: DROP INDEX {name.lower()} (add FORCE when a plain DROP fails) and run "
                    f"sql/oracle/install/{file} as MEMGATE_OWNER (re-runnable; `memgate init` runs it "
                    "itself, dropping an index that is not VALID, until the schema version is recorded).",
                )
            )
        else:
            checks.append(InstallCheck(f"text index {name}", True, "VALID"))
    return checks


def _contexts(recorded: Recorded, want: Expected) -> list[InstallCheck]:
    fix = (
        "Grant CREATE ANY CONTEXT to MEMGATE_OWNER again and run `memgate init` "
        "(sql/oracle/install/030_context.sql creates the contexts and memgate_ctx_pkg)."
    )
    if recorded.identity_error is not None:
        return [
            InstallCheck(
                "context namespaces",
                False,
                f"binding an identity failed ({recorded.identity_error}): every tool call would fail the same way.",
                fix,
            )
        ]
    have = {
        r["namespace"].upper(): (r.get("schema", "").upper(), r.get("package", "").upper()) for r in recorded.contexts
    }
    checks = []
    for namespace, (schema, package) in sorted(want.contexts.items()):
        if namespace == recorded.query_context:
            if recorded.handover_error is not None:
                checks.append(
                    InstallCheck(
                        f"context {namespace}",
                        False,
                        f"handing an identity to the query account failed ({recorded.handover_error}): "
                        "execute_query would fail.",
                        fix,
                    )
                )
            continue
        if have.get(namespace) != (schema, package):
            found = have.get(namespace)
            checks.append(
                InstallCheck(
                    f"context {namespace}",
                    False,
                    f"ALL_CONTEXT shows {'no ' + namespace if found is None else f'{namespace} USING {found[0]}.{found[1]}'}"
                    f" once an identity is bound; the install makes it USING {schema}.{package}.",
                    fix,
                )
            )
    if checks:
        return checks
    return [
        InstallCheck(
            "context namespaces", True, ", ".join(sorted(want.contexts)) + " present and bound by memgate_ctx_pkg"
        )
    ]
