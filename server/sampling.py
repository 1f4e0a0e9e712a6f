"""The host's model as the compaction summariser, through MCP sampling (`sampling/createMessage`).

Only when the client declared the sampling capability on a handshake-era connection: on the
2026-07-28 era server-initiated requests need the input-request mechanism, which this server
does not use for sampling yet, so there (and without the capability) compaction uses the
extractive summariser. One request, bounded tokens and time; any failure falls back too.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable

import anyio
import mcp_types
from fastmcp.server.dependencies import get_context
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

log = logging.getLogger("memgate.server")

#: how long one summary may take the host's model
SAMPLING_TIMEOUT_S = 60.0

Sampler = Callable[[str, str, int], "str | None"]


def host_sampler() -> Sampler | None:
    """A summariser that asks the connected host's model, or None when the client offers no sampling.
    Call it in the request's event loop; call the sampler from a worker thread of that loop."""
    try:
        session = get_context().session
        if getattr(session, "protocol_version", None) in MODERN_PROTOCOL_VERSIONS:
            return None
        if not session.check_client_capability(mcp_types.ClientCapabilities(sampling=mcp_types.SamplingCapability())):
            return None
    except (RuntimeError, AttributeError):  # no request context, or a session without capabilities
        return None

    def sample(text: str, system: str, max_tokens: int) -> str | None:
        async def ask() -> str | None:
            message = mcp_types.SamplingMessage(role="user", content=mcp_types.TextContent(type="text", text=text))
            with anyio.fail_after(SAMPLING_TIMEOUT_S), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # sampling is deprecated in the 2026-07-28 era only
                result = await session.create_message([message], max_tokens=max_tokens, system_prompt=system)
            content = result.content
            return content.text if isinstance(content, mcp_types.TextContent) else None

        try:
            return anyio.from_thread.run(ask)
        except Exception as exc:  # the host refused, timed out, or answered with something else
            log.warning("sampling a conversation summary failed (%s); using the extractive summariser", exc)
            return None

    return sample
