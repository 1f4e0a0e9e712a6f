"""Entry points for context windows: assemble, manifests, replay, expand, clarify, tool rounds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..clock import now_iso
from ..context import assemble as context_assembly
from ..context import clarify as context_clarify
from ..context import expand as context_expand
from ..context import manifest as context_manifests
from ..context import manifest_view
from ..context import replay as context_replay
from ..context import rounds as context_rounds
from ..context.assemble import ContextWindow
from ..context.replay import Replay
from ..context.rerank import Reranker
from ..context.window import WindowKey
from ..conversations import compaction as conversation_compaction
from ..conversations import turns as conversation_turns
from ..conversations.ranking import Ranker
from ..errors import Conflict
from ..identity import Identity
from ..kb import images as kb_images
from ..operator import rows_in_tenant
from ..output.results import ToolOutput
from ..retention import erased_ids
from .conversations import ConversationMethods
from .core import require_text


class ContextWindowMethods(ConversationMethods):
    """Windows are assembled from conversations: the prompt compacts and records them."""

    def assemble_context(
        self,
        identity: Identity,
        question: str,
        intent: str,
        *,
        now: str | None = None,
        reranker: Reranker | None = None,
        record_question: bool = False,
        sampler: conversation_compaction.Sampler | None = None,
        ranker: Ranker | None = None,
    ) -> ContextWindow:
        """The budgeted context window for `question`, recorded with its manifest in the caller's thread.

        With `record_question` (the context_window prompt), the conversation is first compacted when
        its stored turns exceed the tail share (summarised by `sampler` when given and the tenant
        allows it), and the question is then recorded as the caller's user turn (once per request
        hash), so the next window's tail shows it."""
        require_text(question, "question")
        require_text(intent, "intent")
        if record_question:
            try:
                self.compact_conversation(identity, intent, sampler=sampler)
            except Conflict:
                pass  # another request compacted the conversation meanwhile
        now = now or now_iso()
        with self.backend.session(identity, now=now) as s:
            window = context_assembly.assemble(
                s, identity, question, intent, now, embedder=self.embedder, reranker=reranker, ranker=ranker
            )
            if record_question:
                with s.transaction():
                    conversation_turns.record_question(s, identity, question, intent, now, self.embedder)
            return window

    def context_manifest(self, identity: Identity, manifest_id: str) -> dict[str, Any]:
        """A manifest the caller may see (its own windows), by id."""
        with self.backend.session(identity, now=now_iso()) as s:
            return context_manifests.read(s, manifest_id, identity.tenant)

    def replay_context(self, identity: Identity, manifest_id: str, *, as_of_marker: bool = False) -> Replay:
        """Rebuild a window from its manifest's row versions, as `identity` may see them now, or with
        `as_of_marker` as the database held them at the manifest's change marker (Oracle's SCN)."""
        with self.backend.session(identity, now=now_iso()) as s:
            return context_replay.replay(
                s,
                manifest_id,
                identity.tenant,
                as_of_marker=as_of_marker,
                exists=lambda ids: rows_in_tenant(self.backend, identity.tenant, ids),
                erased=lambda ids: erased_ids(self.backend, identity.tenant, ids),
            )

    def show_manifest(self, identity: Identity, manifest_id: str | None = None) -> ToolOutput:
        """Handler `show_manifest`: a manifest of the caller's windows as text and the manifest view's data."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return manifest_view.manifest_view(s, identity, manifest_id, now)

    def expand(self, identity: Identity, memory_id: str, include_bytes: bool = False) -> ToolOutput:
        """Handler `expand`: the full form of a pointer or summary issued in the caller's current window,
        or an image a result showed the caller (with its bytes when `include_bytes`, within the cap)."""
        require_text(memory_id, "memory_id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            if kb_images.is_image_id(memory_id):
                return context_expand.expand_image(
                    s, memory_id, now, include_bytes=include_bytes, max_image_bytes=self.caps.max_image_bytes
                )
            return context_expand.expand(
                s,
                WindowKey.of(identity),
                memory_id,
                now=now,
                idle_s=self.context.window_idle_s,
                max_tokens=self._result_tokens(identity),
            )

    def clarify(
        self,
        identity: Identity,
        question: str,
        options: list[str] | None = None,
        *,
        action: str = "fallback",
        answer: str | None = None,
    ) -> ToolOutput:
        """Handler `clarify`: record the user's answer (or decline, or that the client could not ask)."""
        require_text(question, "question")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return context_clarify.record_clarification(
                s,
                identity,
                question=question,
                options=options,
                action=action,
                answer=answer,
                now=now,
                idle_s=self.context.window_idle_s,
            )

    def run_tool_round(
        self, identity: Identity, *, call_id: str, tool_name: str, call: Callable[[], ToolOutput]
    ) -> ToolOutput:
        """Run one tool call as a round of the caller's current window, if it has one.

        With no window the call runs as it is. Otherwise it runs bounded by what the
        window's tool reserve has left, and its result is charged and recorded as a thread
        event referencing mcp_call_log row `call_id`. With no round left it still runs, bounded
        by the window's max_tool_result_tokens and not charged, and its result carries a
        one-line notice that the window is spent; a tenant whose budget says
        `spent_rounds: "refuse"` gets one sentence instead, and the call does not run.
        """
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            opened = context_rounds.open_round(s, WindowKey.of(identity), now=now, idle_s=self.context.window_idle_s)
        if opened is None:
            return call()
        if isinstance(opened, context_rounds.Spent):
            if opened.refuse:
                return opened.refusal
            return context_rounds.answered(opened, context_rounds.run_capped(opened, call))
        output = context_rounds.run_capped(opened, call)
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return context_rounds.close_round(
                s, identity, opened, call_id=call_id, tool_name=tool_name, output=output, now=now
            )
