"""The Memory Manager facade: the single entry point to memory.

Every public method takes the caller's trusted Identity, checks out a session bound
to that identity's tenant context, does one job through one capability folder, and
returns. Methods that serve a tool return a ToolOutput: compact text, capped, cited,
and saying when more exists. The manager knows nothing of MCP. Nothing here reads or
writes outside the wall: the operator's commands across tenants are OperatorManager's
(manager/operator.py), which only the CLI holds.

MemoryManager is one class, because tool handlers name a method of it (what the toolbox's
allowlist and the layout test reason about); its methods live in one mixin per seam, each
a few lines of wiring (a session, one capability call, the caps) over ManagerCore
(core.py: the backend, the settings, the embedder, the caller's budget):

    claims.py         claims: lookup, corrections
    promotion.py      remembering: the promotion gate, the memory view's review
    links.py          typed links between memories
    guidelines.py     guidelines and persona, the budget's policy updates
    context.py        context windows: assemble, manifests, replay, expand, clarify, tool rounds
    conversations.py  conversations: turns, recall, import and compaction
    toolbox.py        toolbox rows
    query.py          execute_query and reports
    files.py          memory files
    knowledge.py      the knowledge base: search, fetch, images, ingest
    calllog.py        the call log

A new entry point goes into the mixin of its seam (or a new one listed here), never into
this file.
"""

from __future__ import annotations

from .calllog import CallLogMethods
from .claims import ClaimMethods
from .context import ContextWindowMethods
from .conversations import ConversationMethods
from .files import MemoryFileMethods
from .guidelines import GuidelineMethods
from .knowledge import KnowledgeBaseMethods
from .links import LinkMethods
from .promotion import RememberMethods
from .query import QueryMethods
from .toolbox import ToolboxMethods

__all__ = ["MemoryManager"]


class MemoryManager(
    ClaimMethods,
    RememberMethods,
    LinkMethods,
    GuidelineMethods,
    ContextWindowMethods,
    ConversationMethods,
    ToolboxMethods,
    QueryMethods,
    MemoryFileMethods,
    KnowledgeBaseMethods,
    CallLogMethods,
):
    """The Memory Manager: every entry point of the mixins above, over one backend."""
