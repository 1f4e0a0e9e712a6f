"""`memgate ui -t T`: the two MCP App views on 127.0.0.1 for an operator, without a host.

The same ui:// pages a host renders (server/app_views.py), in a small host page of memgate's own
(server/views/host.html) that speaks their bridge and answers their tools/call with operator
calls, with the CLI's trust (file access to the database): a manifest is shown as its owner's
wall shows it (`context_owner`, as `memgate manifest show` does), the tenant's candidates of every
user are listed, and Approve and Reject are `memgate candidates approve|reject`, bound to the
version the page showed. It binds 127.0.0.1 only and answers only requests naming it as Host,
with no Origin or its own (a DNS-rebinding page elsewhere gets 421 or 403).
"""

from __future__ import annotations

import socket
import sys
from importlib import resources
from typing import TYPE_CHECKING, Any

import click

from .common import friendly_errors, open_manager, operator_of, settings_from, tenant_option

if TYPE_CHECKING:
    from memgate.manager import MemoryManager

#: who decides, in the candidate's decided_by
OPERATOR = "ui:operator"
DEFAULT_PORT = 8766
#: the views' tools, answered here for the operator
TOOLS = ("show_manifest", "show_memory", "review_candidate")


def register(cli: click.Group) -> None:
    @cli.command("ui")
    @tenant_option()
    @click.option(
        "--port",
        type=click.IntRange(0, 65535),
        default=DEFAULT_PORT,
        show_default=True,
        help="Port on 127.0.0.1 (0: any free one).",
    )
    @click.pass_context
    @friendly_errors
    def ui(ctx, tenant, port) -> None:
        """Browse a tenant's context manifests and review its memory candidates in a browser.

        Serves the MCP App views (the manifest view, the memory view) on 127.0.0.1 with the
        operator's trust: Approve and Reject act as `memgate candidates approve|reject`.

        \b
        Example:
          memgate ui -t acme        # then open http://127.0.0.1:8766/
        """
        import uvicorn

        manager = open_manager(settings_from(ctx))
        try:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", port))
            bound = sock.getsockname()[1]
            click.echo(f"memgate ui for {tenant}: http://127.0.0.1:{bound}/ (Ctrl-C stops it)")
            sys.stdout.flush()
            config = uvicorn.Config(ui_app(manager, tenant, bound), log_level="warning", lifespan="off")
            uvicorn.Server(config).run(sockets=[sock])
        finally:
            manager.close()


def ui_app(manager: MemoryManager, tenant: str, port: int):
    """The Starlette app: the host page at /, the views' calls at POST /rpc."""
    import anyio
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    from ..app_views import UI_MIME_TYPE, VIEWS, view_html

    calls = OperatorCalls(manager, tenant)
    hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
    origins = {f"http://{h}" for h in hosts}
    host_page = resources.files("memgate.server").joinpath("views", "host.html").read_text(encoding="utf-8")

    def refused(request: Request) -> Response | None:
        if request.headers.get("host") not in hosts:
            return Response("memgate ui answers only 127.0.0.1\n", status_code=421)
        origin = request.headers.get("origin")
        if origin is not None and origin not in origins:
            return Response("memgate ui answers only its own page\n", status_code=403)
        return None

    async def page(request: Request) -> Response:
        return refused(request) or HTMLResponse(host_page, headers={"cache-control": "no-store"})

    async def rpc(request: Request) -> Response:
        if (answer := refused(request)) is not None:
            return answer
        try:
            body = await request.json()
            method, params = body["method"], body.get("params") or {}
        except (ValueError, KeyError, TypeError, AttributeError):
            return JSONResponse({"error": {"code": -32600, "message": "not a JSON-RPC request"}}, status_code=400)
        if method == "resources/read":
            uri = params.get("uri")
            if uri not in VIEWS:
                return JSONResponse({"error": {"code": -32002, "message": f"no view {uri!r}"}})
            contents = [{"uri": uri, "mimeType": UI_MIME_TYPE, "text": view_html(uri)}]
            return JSONResponse({"result": {"contents": contents}})
        if method == "manifests":
            return JSONResponse({"result": await anyio.to_thread.run_sync(calls.manifests)})
        if method == "tools/call":
            name, arguments = params.get("name"), params.get("arguments") or {}
            return JSONResponse({"result": await anyio.to_thread.run_sync(lambda: calls.call(name, arguments))})
        return JSONResponse({"error": {"code": -32601, "message": f"{method} is not served here"}})

    return Starlette(routes=[Route("/", page), Route("/rpc", rpc, methods=["POST"])])


class OperatorCalls:
    """The views' tools for the operator: the same data shapes as the toolbox handlers return."""

    def __init__(self, manager: MemoryManager, tenant: str):
        self.manager = manager
        self.tenant = tenant
        self.operator = operator_of(manager)

    def manifests(self) -> dict[str, Any]:
        rows = self.operator.context_manifests(self.tenant, 50)
        listed = [
            {"id": r["id"], "created_at": r["created_at"], "user": r["user_id"], "intent": r["intent"]} for r in rows
        ]
        return {"tenant": self.tenant, "manifests": listed}

    def call(self, name: Any, arguments: Any) -> dict[str, Any]:
        """A CallToolResult as JSON; a refusal is isError with the operator's full message."""
        from memgate.manager import InvalidArgument, MemgateError

        try:
            if name not in TOOLS or not isinstance(arguments, dict):
                raise InvalidArgument(f"memgate ui serves the tools {list(TOOLS)} with an arguments object")
            text, structured = getattr(self, name)(**arguments)
        except TypeError as exc:
            return _error(f"{name}: {exc}")
        except MemgateError as exc:
            return _error(exc.message + (f" {exc.hint}" if getattr(exc, "hint", None) else ""))
        return {"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": False}

    def show_manifest(self, manifest_id: str | None = None) -> tuple[str, dict[str, Any]]:
        from memgate.manager import InvalidArgument

        if manifest_id is None:
            latest = self.operator.context_manifests(self.tenant, 1)
            if not latest:
                raise InvalidArgument(f"tenant {self.tenant} has no context manifest yet")
            manifest_id = latest[0]["id"]
        owner = self.operator.context_owner(self.tenant, _text(manifest_id, "manifest_id"))
        out = self.manager.show_manifest(owner, manifest_id)
        assert out.structured is not None
        return out.text, out.structured

    def show_memory(self, limit: int = 50) -> tuple[str, dict[str, Any]]:
        from memgate.manager import operator_memory_view

        limit = max(1, min(int(limit), 500))
        out = operator_memory_view(self.manager, self.tenant, limit=limit, review_tool="review_candidate")
        assert out.structured is not None
        return f"tenant {self.tenant}: {out.text}", out.structured

    def review_candidate(self, candidate_id: str, version: int, decision: str) -> tuple[str, dict[str, Any]]:
        from memgate.manager import InvalidArgument, promotion_review

        if decision not in ("approve", "reject") or type(version) is not int:
            raise InvalidArgument("decision must be approve or reject, and version the candidate's version")
        decide = promotion_review.approve if decision == "approve" else promotion_review.reject
        row = decide(self.manager, self.tenant, _text(candidate_id, "candidate_id"), operator=OPERATOR, version=version)
        text = f"candidate {row['id']} {row['decision']} ({row['rule']}) at version {row['version']}"
        structured = {
            "view": "decision",
            "candidate_id": row["id"],
            "decision": row["decision"],
            "rule": row["rule"],
            "version": row["version"],
            "record_id": row.get("record_id"),
        }
        return text, structured


def _text(value: Any, field: str) -> str:
    from memgate.manager import InvalidArgument

    if not isinstance(value, str) or not value or len(value) > 200:
        raise InvalidArgument(f"{field} must be an id", field=field)
    return value


def _error(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}
