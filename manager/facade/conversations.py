"""Entry points for conversations: turns and their compaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..backend.base import Row
from ..clock import now_iso
from ..context import assemble as context_assembly
from ..conversations import compaction as conversation_compaction
from ..conversations import messages as conversation_messages
from ..conversations import turns as conversation_turns
from ..conversations.messages import Turn
from ..identity import Identity
from ..output.results import ToolOutput
from .core import ManagerCore, require_text


class ConversationMethods(ManagerCore):
    def record_turn(self, identity: Identity, role: str, content: str | Sequence[Mapping[str, Any]]) -> Row:
        """Append a turn to the caller's conversation (its user, agent and thread, else its window session):
        the volatile tail of its next window, and a recall candidate in its other conversations.

        `content` is text, or ordered parts: `{"type": "text", "text": ...}` and `{"type": "image",
        "image_id": ...}` (a stored image the caller can see) or `{"type": "image", "data": bytes,
        "name": ..., "description": ...}` (stored with the turn, in the caller's scope).
        """
        now = now_iso()
        with self.backend.session(identity, now=now) as s, s.transaction():
            return conversation_messages.write_turn(s, identity, role, content, now)

    def compact_conversation(
        self,
        identity: Identity,
        intent: str,
        *,
        force: bool = False,
        sampler: conversation_compaction.Sampler | None = None,
    ) -> Row | None:
        """Summarise the raw turns of the caller's conversation since its last compaction into a
        summarization_memory row when they exceed the intent's tail share (or, with `force`, all but the
        newest two); None when there is nothing to compact. `sampler` (the host's model) is used when the
        tenant allows it and its summary is within the bound (identifiers it dropped appended verbatim),
        else the deterministic extractive summariser."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            budget, _ = context_assembly.budget_of(s, now)
            compaction = conversation_compaction.plan(s, identity, budget, intent, force=force)
            choice = conversation_compaction.summariser_choice(s, now) if compaction else None
        if compaction is None:
            return None
        summary, name = None, conversation_compaction.EXTRACTIVE
        if sampler is not None and choice == "sampling":
            prompt = conversation_compaction.SYSTEM_PROMPT.format(tokens=compaction.max_tokens)
            summary = conversation_compaction.checked_sample(
                compaction, sampler(compaction.text(), prompt, compaction.max_tokens)
            )
            name = "sampling" if summary is not None else name
        if summary is None:
            summary = conversation_compaction.extractive(compaction)
        now = now_iso()
        with self.backend.session(identity, now=now) as s, s.transaction():
            return conversation_compaction.write(s, identity, compaction, summary, name, now)

    def append_turn(self, identity: Identity, role: str, text: str) -> ToolOutput:
        """Handler `record_turn` (a preset row): the agent appends a text turn of its conversation."""
        return conversation_turns.turn_written(self.record_turn(identity, role, text))

    def read_turn(self, identity: Identity, turn_id: str, *, include_bytes: bool = False) -> Turn:
        """A turn of the caller's conversation, its parts in order; image bytes only with include_bytes."""
        require_text(turn_id, "turn_id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return conversation_messages.read_turn(s, turn_id, now, include_bytes=include_bytes)
