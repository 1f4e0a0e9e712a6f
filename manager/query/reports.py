"""Report rows: one reviewed SELECT with named binds, handed to the model as a tool.

The statement is the operator's, not the model's, so it may bind values as `:name`
(execute_query may not). It is admitted when its toolbox row is written, by the same
rules and views as execute_query, and its binds must be exactly the properties the
row's tool_schema declares. A call runs it behind the same read-only wall, with the
same caps, cell shaping and table (execute.run_admitted); only the values are the
model's, and the driver binds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..backend.base import Backend
from ..errors import InvalidArgument, QueryRejected
from ..identity import Identity
from ..limits import CapsSettings
from ..output.results import ToolOutput
from .admission import AdmittedQuery, admit_query
from .execute import run_admitted

__all__ = ["REPORT_HANDLER", "admit_report", "run_report"]

#: the toolbox handler whose rows hold a report (access_policy.report.sql)
REPORT_HANDLER = "report"
#: what a bind value may be: the driver binds these and nothing else
_SCALARS = (str, int, float, bool, type(None))


def admit_report(backend: Backend, caps: CapsSettings, definition: Mapping[str, Any]) -> AdmittedQuery:
    """Admit a report row's statement before the row is written; QueryRejected (naming the
    rule) or InvalidArgument (binds that do not match the schema) when it cannot be one."""
    name = definition.get("tool_name")
    policy = definition.get("access_policy") or {}
    report = policy.get("report") if isinstance(policy, Mapping) else None
    sql = report.get("sql") if isinstance(report, Mapping) else None
    if not isinstance(sql, str) or not sql.strip():
        raise InvalidArgument(
            f"report {name!r} has no statement: access_policy.report.sql must hold its SELECT",
            field="access_policy.report.sql",
            hint='Give the row "access_policy": {"report": {"sql": "SELECT ..."}}.',
        )
    try:
        admitted = admit_query(
            sql,
            dialect=backend.query_dialect,
            allowed_views=set(backend.query_catalog()),
            max_chars=caps.query_max_chars,
            binds=True,
        )
    except QueryRejected as exc:
        raise QueryRejected(f"report {name!r}: {exc.message}", rule=exc.rule, hint=exc.hint) from None
    schema = definition.get("tool_schema") or {}
    declared = set(schema.get("properties") or {}) if isinstance(schema, Mapping) else set()
    undeclared, unused = sorted(admitted.binds - declared), sorted(declared - admitted.binds)
    if undeclared or unused:
        what = "; ".join(
            filter(
                None,
                [
                    undeclared
                    and f"the SQL binds {', '.join(':' + b for b in undeclared)}, which tool_schema does not declare",
                    unused and f"tool_schema declares {', '.join(unused)}, which the SQL never binds",
                ],
            )
        )
        raise InvalidArgument(
            f"report {name!r}: {what}",
            field="tool_schema",
            hint="Make the schema's properties exactly the statement's :name binds.",
        )
    return admitted


def run_report(
    backend: Backend,
    caps: CapsSettings,
    identity: Identity,
    report: Mapping[str, Any],
    binds: Mapping[str, Any],
    now: str,
) -> ToolOutput:
    """Run the row's admitted statement with the caller's bind values, exactly as execute_query runs a query."""
    for key, value in binds.items():
        if not isinstance(value, _SCALARS):
            raise InvalidArgument(
                f"a report's values are text, numbers, true/false or null, not {type(value).__name__}", field=key
            )
    return run_admitted(backend, caps, identity, report["sql"].strip(), report.get("max_rows"), now, binds=binds)
