"""Tokens: the tool menu a host sends the model every turn, and each result vs the same rows as JSON.

    python3 -m bench.menu

Counted with o200k_base (manager/tokens.py). The menu is each tool as tools/list sends it
(name, description, inputSchema as compact JSON), as tests/toolbox/test_tool_menu.py counts it.
A result is the text the model receives; "as JSON" is the same rows a plain MCP server
would return instead: every column of each row the result rendered, `json.dumps`ed
(embeddings left out, since they cannot be JSON text).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import tempfile
import time
from pathlib import Path

from .common import machine, markdown_table, report
from .servers import demo_database, in_process_app

QUERY = "SELECT subject, predicate, content, version, valid_from FROM entity_memory ORDER BY subject, predicate"


def _wire_tokens(tool) -> int:
    from memgate.manager import count_tokens

    wire = tool.model_dump(by_alias=True, exclude_none=True)
    sent = {key: wire[key] for key in ("name", "description", "inputSchema") if key in wire}
    return count_tokens(json.dumps(sent, ensure_ascii=False, separators=(",", ":")))


def _json_tokens(rows: list[dict]) -> int:
    from memgate.manager import count_tokens

    return count_tokens(json.dumps(rows, ensure_ascii=False, default=str))


def _without_vectors(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "embedding" and not isinstance(v, bytes)} for r in rows]


async def _menu(db: Path) -> dict[str, int]:
    from fastmcp import Client

    app, manager = in_process_app(db)
    try:
        async with Client(app) as client:
            return {t.name: _wire_tokens(t) for t in await client.list_tools()}
    finally:
        manager.close()


def _results(manager) -> dict[str, dict]:
    from memgate.manager import ACME, count_tokens

    out = {}
    lookup = manager.lookup_entity(ACME, "model:helios-rag")
    with manager.backend.session(ACME) as s:
        claims = s.raw(
            "SELECT * FROM entity_memory WHERE subject = :s ORDER BY predicate, version", {"s": "model:helios-rag"}
        )
    out["lookup_entity"] = (lookup, _without_vectors(claims))
    search = manager.search_memory(ACME, "Helios evaluation qrels")
    hits = manager.search_chunks(ACME, "Helios evaluation qrels", limit=search.rows)
    out["search_memory"] = (search, [dataclasses.asdict(h) for h in hits])
    query = manager.execute_query(ACME, QUERY)
    with manager.backend.session(ACME) as s:
        rows = s.raw(QUERY.replace("FROM entity_memory", "FROM entity_memory WHERE valid_until IS NULL"))
    out["execute_query"] = (query, rows)
    return {
        name: {
            "rows": len(rows),
            "result_tokens": count_tokens(output.text),
            "json_tokens": _json_tokens(rows),
            "ratio": round(count_tokens(output.text) / max(1, _json_tokens(rows)), 2),
        }
        for name, (output, rows) in out.items()
    }


def measure(db: Path) -> dict:
    manager = demo_database(db)
    try:
        results = _results(manager)
    finally:
        manager.close()
    menu = asyncio.run(_menu(db))
    return {"menu_tokens": menu, "menu_total": sum(menu.values()), "results": results}


def table(data: dict) -> str:
    menu = markdown_table(
        ["tool", "menu tokens"], [*sorted(data["menu_tokens"].items()), ["**all**", data["menu_total"]]]
    )
    res = markdown_table(
        ["result", "rows", "result tokens", "same rows as JSON", "result / JSON"],
        [[n, r["rows"], r["result_tokens"], r["json_tokens"], r["ratio"]] for n, r in data["results"].items()],
    )
    return f"{menu}\n\n{res}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m bench.menu", description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, help="write the JSON here instead of bench/results/")
    args = parser.parse_args(argv)
    started, info = time.perf_counter(), machine()
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp:
        data = measure(Path(tmp) / "menu.db")
    data["machine"] = info
    report(
        "menu",
        "Tokens: the tool menu, and results vs the same rows as JSON (o200k_base)",
        data,
        table(data),
        results=args.results,
        started=started,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
