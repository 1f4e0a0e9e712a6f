"""The assembled context window as the MCP prompt `context_window(question, intent)`.

The host asks for the window of a question; memgate assembles it for the caller (its
tenant, user, agent and thread, from the transport), records its manifest in the
thread, records the question as the caller's user turn (once per request: a re-render of
the same request adds nothing), and returns the window as one user message; the next
window's volatile tail shows the earlier questions. A conversation whose stored turns exceed
the tail share is compacted first, summarised by the host's model when the client offers
sampling (sampling.py). Tool calls that follow in the same
thread (or, over stdio with no thread, the same server session) are its tool rounds.

A client's mistake (a missing question, an intent the budget does not name) is one line in the
server's log and a clean error to the client; FastMCP's own record of it, with its traceback,
is at DEBUG, so a host's MCP log does not fill with tracebacks of bad arguments.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from fastmcp.exceptions import PromptError, ValidationError
from fastmcp.prompts import Message, Prompt
from fastmcp.prompts.base import PromptArgument, PromptResult

from memgate.manager import DEFAULT_INTENT, ContextTooSmall, InvalidArgument, MemgateError, MemoryManager
from memgate.toolbox import CallContextResolver

from .sampling import host_sampler

log = logging.getLogger("memgate.server")

CONTEXT_PROMPT = "context_window"
_UNAVAILABLE = "memgate could not assemble the context window; the operator log has the details."


class ContextWindowPrompt(Prompt):
    manager: Any = None
    resolve: Any = None

    async def render(self, arguments: dict[str, Any] | None = None) -> PromptResult:
        args = arguments or {}
        missing = [a.name for a in self.arguments or [] if a.required and not args.get(a.name)]
        identity = self.resolve().identity
        if missing:  # FastMCP does not check a raw Prompt's required arguments
            raise _refused(identity.tenant, f"missing required argument(s): {', '.join(missing)}")
        question, intent = str(args["question"]), str(args.get("intent") or DEFAULT_INTENT)
        try:
            sampler = host_sampler()
            window = await anyio.to_thread.run_sync(
                lambda: self.manager.assemble_context(identity, question, intent, record_question=True, sampler=sampler)
            )
        except InvalidArgument as exc:
            raise _refused(identity.tenant, exc.message) from None
        except ContextTooSmall as exc:
            log.warning("context window for tenant %s: %s", identity.tenant, exc.message)
            raise PromptError(
                f"The context budget is too small for the {exc.field} slice; the operator must raise usable_context.",
                log_level=logging.DEBUG,
            ) from None
        except MemgateError as exc:
            log.error("context window for tenant %s failed: %s", identity.tenant, exc.message, exc_info=True)
            raise PromptError(_UNAVAILABLE) from None
        return PromptResult(
            [Message(window.text)], description=f"context window {window.manifest_id}: {window.tokens} tokens"
        )


def _refused(tenant: str, message: str) -> ValidationError:
    """A client's mistake: one line in the log, and the error FastMCP logs again only at DEBUG."""
    log.warning("context_window prompt refused for tenant %s: %s", tenant, message)
    return ValidationError(message, log_level=logging.DEBUG)


def add_context_window(mcp: Any, manager: MemoryManager, resolve: CallContextResolver) -> None:
    mcp.add_prompt(
        ContextWindowPrompt(
            name=CONTEXT_PROMPT,
            title="Context window",
            description="The memory context for a question, assembled within the tenant's context budget: "
            "guidelines, persona, tools, facts, evidence, history and this thread's recent turns.",
            arguments=[
                PromptArgument(name="question", description="The user's question.", required=True),
                PromptArgument(
                    name="intent",
                    description="An intent of the tenant's context budget, e.g. fact_check or comparison. "
                    f"Default: {DEFAULT_INTENT}, which every budget has.",
                    required=False,
                ),
            ],
            manager=manager,
            resolve=resolve,
        )
    )
