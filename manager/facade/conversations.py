"""Entry points for conversations: turns, recall, import and compaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..backend.base import Row
from ..claims import guidelines
from ..clock import now_iso
from ..context import assemble as context_assembly
from ..conversations import compaction as conversation_compaction
from ..conversations import dates as conversation_dates
from ..conversations import importing as conversation_import
from ..conversations import messages as conversation_messages
from ..conversations import policy as recall_policy
from ..conversations import recall as conversation_recall
from ..conversations import recall_index
from ..conversations import turns as conversation_turns
from ..conversations.keys import find as find_conversation
from ..conversations.messages import Turn
from ..conversations.ranking import Ranked, Ranker
from ..identity import Identity
from ..output.results import ToolOutput
from .core import ManagerCore, require_text


class ConversationMethods(ManagerCore):
    def record_turn(
        self,
        identity: Identity,
        role: str,
        content: str | Sequence[Mapping[str, Any]],
        *,
        said_at: str | None = None,
    ) -> Row:
        """Append a turn to the caller's conversation (its user, agent and thread, else its window session):
        the volatile tail of its next window, and a recall candidate in its other conversations.

        `content` is text, or ordered parts: `{"type": "text", "text": ...}` and `{"type": "image",
        "image_id": ...}` (a stored image the caller can see) or `{"type": "image", "data": bytes,
        "name": ..., "description": ...}` (stored with the turn, in the caller's scope). `said_at` is when
        it was said, if not now (ISO-8601, epoch seconds or "1:56 pm on 8 May, 2023").
        """
        now = now_iso()
        # a time ahead of the server's (a host's clock skew) is now: a turn is never said in the future
        when = min(conversation_dates.said_at(said_at, field="said_at"), now) if said_at is not None else None
        embedder = self.embedder
        with self.backend.session(identity, now=now) as s, s.transaction():
            return conversation_messages.write_turn(s, identity, role, content, now, said_at=when, embedder=embedder)

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
            return conversation_compaction.write(s, identity, compaction, summary, name, now, self.embedder)

    def append_turn(self, identity: Identity, role: str, text: str) -> ToolOutput:
        """Handler `record_turn` (a preset row): the agent appends a text turn of its conversation."""
        return conversation_turns.turn_written(self.record_turn(identity, role, text))

    def read_turn(self, identity: Identity, turn_id: str, *, include_bytes: bool = False) -> Turn:
        """A turn of the caller's conversation, its parts in order; image bytes only with include_bytes."""
        require_text(turn_id, "turn_id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return conversation_messages.read_turn(s, turn_id, now, include_bytes=include_bytes)

    def recall_conversations(
        self, identity: Identity, question: str, *, limit: int = 10, ranker: Ranker | None = None
    ) -> list[Ranked]:
        """Recall's ranking alone (no window): the caller's turns and summaries for `question` in its recall
        policy's scope, best first, at most `limit` (the benchmark's recall@k, a ranker's tuning)."""
        require_text(question, "question")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            own = find_conversation(s, identity)
            filters = recall_policy.current_policy(s, now).filters(identity, own["id"] if own else None)
            return conversation_recall.rank(s, self.embedder, question, filters, ranker=ranker).ranked[:limit]

    def recall_policy(self, identity: Identity) -> recall_policy.RecallPolicy:
        """The tenant's recall policy in force (the default, same_user_agent, when it has set none)."""
        with self.backend.session(identity) as s:
            return recall_policy.current_policy(s, now_iso())

    def set_recall_policy(self, identity: Identity, policy: str) -> Row:
        """A policy update of the tenant's recall policy (a versioned guideline)."""
        checked = recall_policy.RecallPolicy.from_json({"policy": policy})
        with self.backend.session(identity) as s:
            return guidelines.update_guideline(
                s,
                identity,
                row_id=recall_policy.ROW_ID,
                key=recall_policy.GUIDELINE_KEY,
                content=f"Which conversations a context window recalls turns from: {checked.policy}.",
                now=now_iso(),
                content_json=checked.to_json(),
            )

    def import_conversations(
        self,
        identity: Identity,
        text: str,
        *,
        source: str = "file",
        user_speaker: str | None = None,
        progress: Any = None,
    ) -> conversation_import.TurnImportReport:
        """Load conversation histories (JSON or JSONL: memgate's, LoCoMo's, a ChatGPT export's) as turns of
        `identity`'s user and agent, each session its own thread; importing the same file again adds nothing."""
        sessions = conversation_import.parse(text, source=source, user_speaker=user_speaker)
        return conversation_import.import_sessions(self.backend, self.embedder, identity, sessions, progress=progress)

    def embed_recall(self, identity: Identity, *, batch: int = 256) -> int:
        """Embed up to `batch` of the caller's recall rows that lack an embedding of the configured embedder
        (turns indexed before one ran, e.g. by a migration); returns how many (0: none left)."""
        with self.backend.session(identity) as s, s.transaction():
            return recall_index.embed_missing(s, self.embedder, batch)
