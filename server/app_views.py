"""The MCP App views (SEP-1865, extension `io.modelcontextprotocol/ui`) as `ui://` resources.

Two pages, written here and shipped in the package (server/views/): `ui://memgate/manifest`
draws a show_manifest result, `ui://memgate/memory` a show_memory result, from the
structuredContent the host hands them (`ui/notifications/tool-result`). Each resource is one
self-contained HTML document (the bridge script and the style sheet inlined), MIME type
`text/html;profile=mcp-app`, with empty CSP domain lists in `_meta.ui.csp` and a CSP meta tag of
its own with `connect-src 'none'`: the page loads nothing and asks nothing of any origin; its
only way out is postMessage to the host, whose tools/call reaches the caller's own tools.
The pages are the same for every caller: no resource names a tenant, user or thread, and no
datum is in them.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from fastmcp import FastMCP
from fastmcp.apps.config import UI_EXTENSION_ID, UI_MIME_TYPE
from fastmcp.resources import TextResource

__all__ = ["UI_EXTENSION_ID", "UI_MIME_TYPE", "VIEWS", "add_app_views", "ui_meta", "view_html"]

#: resource URI -> (page file, name, description)
VIEWS = {
    "ui://memgate/manifest": (
        "manifest.html",
        "manifest-view",
        "What the agent saw: a context window's budget per slice, admitted and excluded records, history.",
    ),
    "ui://memgate/memory": (
        "memory.html",
        "memory-view",
        "What the agent remembered: memories by type, candidates and the promotion gate's decisions.",
    ),
}


def ui_meta() -> dict:
    """`_meta.ui` of both resources: no external origin of any kind, a border from the host."""
    return {
        "ui": {
            "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
            "prefersBorder": True,
        }
    }


@cache
def view_html(uri: str) -> str:
    """The page of `uri` with the bridge and the style sheet inlined: one document, nothing to fetch."""
    folder = resources.files("memgate.server").joinpath("views")
    page = folder.joinpath(VIEWS[uri][0]).read_text(encoding="utf-8")
    return page.replace("/*memgate:bridge*/", folder.joinpath("bridge.js").read_text(encoding="utf-8")).replace(
        "/*memgate:style*/", folder.joinpath("style.css").read_text(encoding="utf-8")
    )


def add_app_views(mcp: FastMCP) -> None:
    for uri, (_, name, description) in VIEWS.items():
        mcp.add_resource(
            TextResource(
                uri=uri,
                name=name,
                title=name.replace("-", " "),
                description=description,
                text=view_html(uri),
                mime_type=UI_MIME_TYPE,
                meta=ui_meta(),
            )
        )
