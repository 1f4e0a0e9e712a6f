"""The Memory Manager facade: the single entry point to memory.

Every public method takes the caller's trusted Identity, checks out a session bound
to that identity's tenant context, does one job through one capability folder, and
returns. Methods that serve a tool return a ToolOutput: compact text, capped, cited,
and saying when more exists. The manager knows nothing of MCP. Nothing here reads or
writes outside the wall: the operator's commands across tenants are OperatorManager's
(manager/operator.py), which only the CLI holds.

Why this file stays one class past 400 lines: each method is a few lines of wiring (a
session, one capability call, the caps), so its length is the count of entry points, not
logic; tool handlers name a method of this one class, which is what the toolbox's
allowlist and the layout test reason about; and several branches add methods here at
once, which merge as additions to one class but would not survive methods moving under
them. When it is split, the seams are its sections: claims and links; guidelines and the
budget; context windows (assemble, replay, expand, clarify, turns, tool rounds); toolbox
rows; execute_query and reports; memory files; the knowledge base (search, fetch,
ingest); the call log. Each would become a mixin beside this file, the public names kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import promotion
from .backend.base import Backend, Row
from .claims import entities, guidelines, stale
from .claims.entities import ClaimLookup
from .claims.render import render_claims
from .clock import now_iso
from .context import assemble as context_assembly
from .context import clarify as context_clarify
from .context import compaction as context_compaction
from .context import expand as context_expand
from .context import manifest as context_manifests
from .context import manifest_view
from .context import messages as context_messages
from .context import replay as context_replay
from .context import rounds as context_rounds
from .context import turns as context_turns
from .context.assemble import ContextWindow
from .context.messages import Turn
from .context.replay import Replay
from .context.rerank import Reranker
from .context.window import WindowKey
from .errors import Conflict, ImageNotVisible, InvalidArgument, NotVisible
from .files.commands import MemoryFiles, open_store
from .files.stores import resolve_store, store_from_key
from .identity import Identity
from .kb import image_view as kb_image_view
from .kb import images as kb_images
from .kb import ingest as kb_ingest
from .kb import search as kb_search
from .kb import sources as kb_sources
from .kb.embed import Embedder, default_embedder
from .kb.image_header import is_image_path
from .kb.render import render_hits
from .limits import CapsSettings, ChunkSettings, ContextBudget, ContextSettings, KbSettings, MemoryFileSettings
from .links import kinds as link_kinds
from .links import render as link_render
from .links import store as link_store
from .links import traverse as link_traversal
from .operator import rows_in_tenant
from .output.results import ToolOutput
from .promotion import memory_view
from .query import execute as query_run
from .query import functions as query_functions
from .query import reports
from .registry import calllog
from .registry import toolbox as toolbox_rows
from .registry.calllog import CallRecord
from .retention import erased_ids
from .tokens import count_tokens


class MemoryManager:
    def __init__(
        self,
        backend: Backend,
        caps: CapsSettings | None = None,
        memory_files: MemoryFileSettings | None = None,
        *,
        embedder: Embedder | None = None,
        kb: KbSettings | None = None,
        context: ContextSettings | None = None,
    ):
        self.backend = backend
        self.caps = caps or CapsSettings()
        self.context = context or ContextSettings()
        backend.set_call_timeout(self.caps.query_timeout_s)
        backend.set_query_temp_caps(self.caps.query_temp_mb, self.caps.query_temp_total_mb)
        self.memory_files = memory_files or MemoryFileSettings()
        self.kb = kb or KbSettings()
        self._embedder = embedder  # None: the default embedder, loaded on first use

    # -- schema and lifecycle --------------------------------------------
    def migrate(self) -> tuple[int, int]:
        return self.backend.migrate()

    def check_schema(self) -> None:
        self.backend.check_schema()

    def describe(self) -> dict[str, Any]:
        return self.backend.describe()

    def install_checks(self) -> list:
        """`memgate doctor`'s post-install checks (backend.InstallCheck: name, ok, detail, fix)."""
        return self.backend.install_checks()

    def close(self) -> None:
        self.backend.close()

    # -- entity claims -----------------------------------------------------
    def lookup_claims(
        self, identity: Identity, subject: str, predicate: str | None = None, *, now: str | None = None
    ) -> tuple[list[ClaimLookup], bool]:
        with self.backend.session(identity) as s:
            return entities.lookup(s, subject, predicate, now or now_iso(), self.caps.max_rows)

    def lookup_entity(
        self,
        identity: Identity,
        subject: str,
        predicate: str | None = None,
        include_history: bool = True,
        *,
        include_invalid_results: bool | None = None,
        num_hops: int = 0,
        max_linked_results: int = link_kinds.DEFAULT_LINKED,
    ) -> ToolOutput:
        """Handler `lookup_entity`: the current version of a claim and its labeled history.

        A claim's non-current versions are its invalid direct results: `include_history`
        shows them, and `include_invalid_results`, when given, is the same switch by the name
        search_memory uses. With `num_hops` each version shown carries its linked memories
        (a correction's predecessor as `is_superseded_by`), whatever the switch says.
        """
        _require_text(subject, "subject")
        link_traversal.check_bounds(num_hops, max_linked_results)
        history = include_history if include_invalid_results is None else include_invalid_results
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            claims, more = entities.lookup(s, subject, predicate, now, self.caps.max_rows)
            versions = [v for c in claims for v in ([c.current] if c.current else []) + c.history]
            notes = stale.stale_facts(
                s,
                {v.id: stale.refs_of(v.row) for v in versions},
                now,
                own_claims={v.id: (v.row["subject"], v.row["predicate"]) for v in versions},
            )
            linked, linked_more = None, False
            if num_hops:
                roots = [
                    v
                    for c in claims
                    for v in ([c.current] if c.current else [])
                    + (c.history[: self.caps.history_rows] if history else [])
                ]
                found = link_traversal.traverse(
                    s, [("entity_memory", v.id) for v in roots], now, hops=num_hops, limit=max_linked_results
                )
                linked, linked_more = link_traversal.bounded(found, max_linked_results)
        return render_claims(
            claims,
            subject=subject,
            predicate=predicate,
            include_history=history,
            more=more or linked_more,
            history_rows=self.caps.history_rows,
            cell_chars=self.caps.cell_chars,
            max_tokens=self._result_tokens(identity),
            annotations=notes,
            linked=linked,
        )

    def correct_entity(
        self,
        identity: Identity,
        subject: str,
        predicate: str,
        content: str,
        *,
        content_json: Any = None,
        confidence: float | None = None,
        expected_version: int | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        thread_id: str | None = None,
    ) -> Row:
        """Record a claim, or its next version if one exists (never an in-place edit)."""
        _require_text(content, "content")
        if content_json is not None and not isinstance(content_json, dict):
            raise InvalidArgument(
                f"conditions must be a JSON object, got {type(content_json).__name__}: {content_json!r:.80}",
                field="content_json",
            )
        with self.backend.session(identity) as s:
            return entities.correct(
                s,
                identity,
                subject=subject,
                predicate=predicate,
                content=content,
                now=now_iso(),
                content_json=content_json,
                confidence=confidence,
                expected_version=expected_version,
                user_id=user_id,
                agent_id=agent_id,
                thread_id=thread_id,
                on_replaced=promotion.on_replaced,
            )

    # -- remembering (the promotion gate) -------------------------------------
    def remember(
        self,
        identity: Identity,
        content: str,
        kind: str = "note",
        subject: str | None = None,
        predicate: str | None = None,
        evidence: Sequence[str] | None = None,
        scope: str | None = None,
        *,
        policy: dict[str, Any] | None = None,
        sampler: promotion.Sampler | None = None,
        confirm: Callable[[str], bool | None] | None = None,
    ) -> ToolOutput:
        """Handler `remember`: propose a durable memory; the promotion gate decides (manager/promotion/)."""
        proposal = promotion.Proposal(content, kind, subject, predicate, tuple(evidence or ()), scope or "")
        return promotion.remember(
            self.backend,
            identity,
            proposal,
            caps=self.caps,
            embedder=lambda: self.embedder,
            row_policy=policy,
            sampler=sampler,
            confirm=confirm,
        )

    # -- the MCP App views (what the agent saw, what it remembered) ------------
    def show_manifest(self, identity: Identity, manifest_id: str | None = None) -> ToolOutput:
        """Handler `show_manifest`: a manifest of the caller's windows as text and the manifest view's data."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return manifest_view.manifest_view(s, identity, manifest_id, now)

    def show_memory(self, identity: Identity, *, limit: int = 50, review_tool: str | None = None) -> ToolOutput:
        """Handler `show_memory`: the caller's memories and candidates; `review_tool` is the review row
        the caller may call (the toolbox passes it), so the view offers Approve and Reject only then."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return memory_view.memory_view(s, now, limit=min(limit, self.caps.max_rows), review_tool=review_tool)

    def review_candidate(self, identity: Identity, candidate_id: str, version: int, decision: str) -> ToolOutput:
        """Handler `review_candidate`: approve or reject the caller's own candidate at the version shown."""
        return memory_view.decision_output(memory_view.decide(self, identity, candidate_id, version, decision))

    # -- links between memories ---------------------------------------------
    def link_memory(
        self,
        identity: Identity,
        from_id: str,
        link_type: str,
        to_id: str,
        *,
        from_type: str | None = None,
        to_type: str | None = None,
        note: str | None = None,
    ) -> ToolOutput:
        """Handler `link_memory`: link two memories the caller can see (an explicit link)."""
        row, created = self.add_link(
            identity, from_id, link_type, to_id, from_type=from_type, to_type=to_type, note=note
        )
        return link_render.written(row, created)

    def add_link(
        self,
        identity: Identity,
        from_id: str,
        link_type: str,
        to_id: str,
        *,
        from_type: str | None = None,
        to_type: str | None = None,
        provenance: str = "explicit",
        note: str | None = None,
    ) -> tuple[Row, bool]:
        """Link two memories, both read through the caller's wall first; (link, False) when it was there."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return link_store.add_link(
                s,
                identity,
                from_id,
                link_type,
                to_id,
                now=now,
                from_type=from_type,
                to_type=to_type,
                provenance=provenance,
                note=note,
            )

    def remove_link(self, identity: Identity, link_id: str) -> Row:
        """Remove a live link the caller can see (the row stays, with deleted_at)."""
        _require_text(link_id, "link_id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return link_store.remove_link(s, link_id, now)

    def find_link(self, identity: Identity, from_id: str, link_type: str, to_id: str) -> Row:
        """The live link of `link_type` from one memory to another, as the caller sees them."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return link_store.find_link(s, identity, from_id, link_type, to_id, now)

    def memory_links(
        self, identity: Identity, memory_id: str, *, memory_type: str | None = None
    ) -> list[link_store.LinkView]:
        """The live links of one memory whose far end the caller can see, oldest first."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return link_store.links_of(s, memory_id, memory_type, now)

    # -- guidelines and persona -------------------------------------------
    def guidelines(self, identity: Identity, key: str | None = None) -> dict[str, Row]:
        with self.backend.session(identity) as s:
            return guidelines.current_guidelines(s, now_iso(), key)

    def context_budget(self, identity: Identity) -> ContextBudget:
        """The tenant's `context_budget` guideline, typed (defaults when it has none)."""
        row = self.guidelines(identity, guidelines.BUDGET_KEY).get(guidelines.BUDGET_KEY)
        return ContextBudget.from_guideline(guidelines.guideline_json(row))

    def _result_tokens(self, identity: Identity) -> int:
        """The token bound of one tool result for this caller now (lower inside a window's tool round)."""
        bound = self.context_budget(identity).max_tool_result_tokens
        cap = context_rounds.result_cap()
        return bound if cap is None else min(bound, cap)

    def set_context_budget(
        self,
        identity: Identity,
        budget: dict[str, Any],
        *,
        content: str | None = None,
        expected_version: int | None = None,
    ) -> Row:
        """A policy update of the tenant-wide budget: validated, the old version retired, the next inserted."""
        checked = ContextBudget.from_guideline(budget)
        with self.backend.session(identity) as s:
            latest = s.fetch_one("guideline_latest_by_row", row_id=guidelines.BUDGET_ROW_ID)
            text = content or (latest["content"] if latest else "The context budget of this tenant.")
            return guidelines.update_guideline(
                s,
                identity,
                row_id=guidelines.BUDGET_ROW_ID,
                key=guidelines.BUDGET_KEY,
                content=text,
                now=now_iso(),
                content_json=checked.to_json(),
                expected_version=expected_version,
            )

    def personas(self, identity: Identity, key: str | None = None) -> dict[str, Row]:
        with self.backend.session(identity) as s:
            return guidelines.current_personas(s, now_iso(), key)

    # -- context windows ---------------------------------------------------
    def assemble_context(
        self,
        identity: Identity,
        question: str,
        intent: str,
        *,
        now: str | None = None,
        reranker: Reranker | None = None,
        record_question: bool = False,
        sampler: context_compaction.Sampler | None = None,
    ) -> ContextWindow:
        """The budgeted context window for `question`, recorded with its manifest in the caller's thread.

        With `record_question` (the context_window prompt), the conversation is first compacted when
        its stored turns exceed the tail share (summarised by `sampler` when given and the tenant
        allows it), and the question is then recorded as the caller's user turn (once per request
        hash), so the next window's tail shows it."""
        _require_text(question, "question")
        _require_text(intent, "intent")
        if record_question:
            try:
                self.compact_conversation(identity, intent, sampler=sampler)
            except Conflict:
                pass  # another request compacted the conversation meanwhile
        now = now or now_iso()
        with self.backend.session(identity, now=now) as s:
            window = context_assembly.assemble(
                s, identity, question, intent, now, embedder=self.embedder, reranker=reranker
            )
            if record_question:
                with s.transaction():
                    context_turns.record_question(s, identity, question, intent, now)
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

    def expand(self, identity: Identity, memory_id: str, include_bytes: bool = False) -> ToolOutput:
        """Handler `expand`: the full form of a pointer or summary issued in the caller's current window,
        or an image a result showed the caller (with its bytes when `include_bytes`, within the cap)."""
        _require_text(memory_id, "memory_id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            if kb_images.is_image_id(memory_id):
                return context_expand.expand_image(
                    s, memory_id, now, include_bytes=include_bytes, max_image_bytes=self.caps.max_image_bytes
                )
            return context_expand.expand(
                s, WindowKey.of(identity), memory_id, now=now, idle_s=self.context.window_idle_s
            )

    def fetch_image(self, identity: Identity, image_id: str) -> ToolOutput:
        """Handler `fetch_image`: an image the caller may read now, by id, with its bytes (within the cap).

        For toolboxes without expand. Like fetch, the wall is the authority: an id that is absent,
        deleted, or another tenant's or user's is the same NotVisible.
        """
        _require_text(image_id, "image_id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            shown = kb_image_view.show_image(
                s,
                image_id,
                now,
                head={"fetch_image": image_id},
                asked_bytes=True,
                max_image_bytes=self.caps.max_image_bytes,
            )
        if shown is None:
            raise ImageNotVisible(f"{image_id!r} is no image this caller can see now")
        return shown

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
        _require_text(question, "question")
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

    def record_turn(self, identity: Identity, role: str, content: str | Sequence[Mapping[str, Any]]) -> Row:
        """Append a turn to the caller's conversation (its thread, else its server session): the volatile tail.

        `content` is text, or ordered parts: `{"type": "text", "text": ...}` and `{"type": "image",
        "image_id": ...}` (a stored image the caller can see) or `{"type": "image", "data": bytes,
        "name": ..., "description": ...}` (stored with the turn, in the caller's scope).
        """
        now = now_iso()
        with self.backend.session(identity, now=now) as s, s.transaction():
            return context_messages.write_turn(s, identity, role, content, now)

    def compact_conversation(
        self,
        identity: Identity,
        intent: str,
        *,
        force: bool = False,
        sampler: context_compaction.Sampler | None = None,
    ) -> Row | None:
        """Summarise the oldest turns of the caller's conversation into a summarization_memory row when
        they exceed the intent's tail share (or, with `force`, all but the newest two); None when
        there is nothing to compact. `sampler` (the host's model) is used when the tenant allows it and
        its summary is within the bound, else the deterministic extractive summariser."""
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            budget, _ = context_assembly.budget_of(s, now)
            compaction = context_compaction.plan(s, identity, budget, intent, force=force)
            choice = context_compaction.summariser_choice(s, now) if compaction else None
        if compaction is None:
            return None
        summary, name = None, context_compaction.EXTRACTIVE
        if sampler is not None and choice == "sampling":
            prompt = context_compaction.SYSTEM_PROMPT.format(tokens=compaction.max_tokens)
            sampled = sampler(compaction.text(), prompt, compaction.max_tokens)
            if sampled and sampled.strip() and count_tokens(sampled) <= compaction.max_tokens:
                summary, name = sampled.strip(), "sampling"
        if summary is None:
            summary = context_compaction.extractive(compaction)
        now = now_iso()
        with self.backend.session(identity, now=now) as s, s.transaction():
            return context_compaction.write(s, identity, compaction, summary, name, now)

    def append_turn(self, identity: Identity, role: str, text: str) -> ToolOutput:
        """Handler `record_turn` (a preset row): the agent appends a text turn of its conversation."""
        return context_turns.turn_written(self.record_turn(identity, role, text))

    def read_turn(self, identity: Identity, turn_id: str, *, include_bytes: bool = False) -> Turn:
        """A turn of the caller's conversation, its parts in order; image bytes only with include_bytes."""
        _require_text(turn_id, "turn_id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return context_messages.read_turn(s, turn_id, now, include_bytes=include_bytes)

    def run_tool_round(
        self, identity: Identity, *, call_id: str, tool_name: str, call: Callable[[], ToolOutput]
    ) -> ToolOutput:
        """Run one tool call as a round of the caller's current window, if it has one.

        With no window the call runs as it is. Otherwise it runs bounded by what the
        window's tool reserve has left, and its result is charged and recorded as a thread
        event referencing mcp_call_log row `call_id`; with no round left it does not run
        and the answer is one sentence.
        """
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            opened = context_rounds.open_round(s, WindowKey.of(identity), now=now, idle_s=self.context.window_idle_s)
        if not isinstance(opened, context_rounds.Round):
            return call() if opened is None else opened
        output = context_rounds.run_capped(opened, call)
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            return context_rounds.close_round(
                s, identity, opened, call_id=call_id, tool_name=tool_name, output=output, now=now
            )

    # -- toolbox rows ------------------------------------------------------
    def active_tools(self, identity: Identity, name: str | None = None) -> list[Row]:
        with self.backend.session(identity) as s:
            return toolbox_rows.active_rows(s, now_iso(), name)

    def tool_existed(self, identity: Identity, name: str) -> bool:
        """Whether the caller ever had a toolbox row named `name`, active or not (within the wall)."""
        with self.backend.session(identity) as s:
            return bool(toolbox_rows.all_versions(s, name))

    def set_tool_enabled(self, identity: Identity, name: str, enabled: bool) -> Row:
        with self.backend.session(identity) as s:
            return toolbox_rows.set_enabled(s, identity, name, enabled, now_iso())

    def seed_tools(self, identity: Identity, definitions: list[dict[str, Any]]) -> list[str]:
        """Insert the tenant-wide rows the tenant does not have yet; a report row's statement is
        admitted first, so a bad one is refused (naming the rule) and nothing is written."""
        self._admit_reports(definitions)
        with self.backend.session(identity) as s:
            return toolbox_rows.seed(s, identity, definitions, now_iso())

    def put_tool(self, identity: Identity, definition: dict[str, Any]) -> Row:
        """Write a tenant-wide toolbox row: version 1, or the next version of the row by that name
        (the one in force is closed). A report's statement is admitted first."""
        self._admit_reports([definition])
        with self.backend.session(identity) as s:
            return toolbox_rows.put(s, identity, definition, now_iso())

    def _admit_reports(self, definitions: list[dict[str, Any]]) -> None:
        for d in definitions:
            if d.get("tool_handler") == reports.REPORT_HANDLER:
                reports.admit_report(self.backend, self.caps, d)

    def upgrade_default_tools(self, identity: Identity, definitions: list[dict[str, Any]]) -> list[str]:
        """Move rows still on a schema an earlier release seeded to the current default; returns their names."""
        with self.backend.session(identity) as s:
            return toolbox_rows.upgrade_defaults(s, identity, definitions, now_iso())

    # -- execute_query -----------------------------------------------------
    def execute_query(self, identity: Identity, query: str, max_rows: int | None = None) -> ToolOutput:
        """Handler `execute_query`: one read-only SELECT over the reviewed views of the caller's current rows."""
        return query_run.execute_query(self.backend, self.caps, identity, query, max_rows, now_iso())

    def query_views_help(self, functions_at: str | None = None) -> str:
        """The reviewed views and their columns, read from the catalog: execute_query's description.
        `functions_at` names where the full function list is (then only families are listed)."""
        return query_run.describe_views(
            self.backend.query_catalog(), self.backend.query_dialect, self.caps, functions_at
        )

    def query_functions_help(self) -> str:
        """Every function a query may call, by family (the memgate://query/functions resource)."""
        return query_functions.functions_text(self.backend.query_dialect)

    def run_report(self, identity: Identity, binds: dict[str, Any], *, policy: dict[str, Any]) -> ToolOutput:
        """Handler `report`: the row's reviewed SELECT (admitted when the row was written) with these binds."""
        return reports.run_report(self.backend, self.caps, identity, policy["report"], binds, now_iso())

    # -- memory files ------------------------------------------------------
    def memory(
        self, identity: Identity, command: str, *, policy: dict[str, Any] | None = None, **params: Any
    ) -> ToolOutput:
        """Handler `memory`: one memory-tool command on the store the row's policy selects.

        The store is resolved before any read, so an unresolvable one fails the call as a
        server error (ConfigError) instead of showing the model an empty /memories.
        """
        store = resolve_store(identity, policy)
        allowed = (policy or {}).get("allowed_commands")
        with self.backend.session(identity) as s:
            return MemoryFiles(s, identity, store, self.memory_files, now_iso()).run(command, params, allowed)

    def memory_store_files(self, identity: Identity, store_key: str) -> AbstractContextManager[MemoryFiles]:
        """Operator access to one store by key: `with manager.memory_store_files(op, "global") as files:`.

        The session acts as the store's owner, the scope its key names (user:jane acts as
        jane, agent:NAME as that agent, session:THREAD in that thread), because the wall
        shows a store and its files only in that scope.
        """
        store = store_from_key(store_key)
        owner = replace(identity, user=store.user_id, agent=store.agent_id, thread=store.thread_id)
        return open_store(self.backend, owner, store, self.memory_files)

    # -- knowledge base search and ingestion --------------------------------
    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self.backend.database_embedder() or default_embedder()
        return self._embedder

    def search_memory(
        self,
        identity: Identity,
        query: str,
        collection: str | None = None,
        max_results: int | None = None,
        *,
        num_hops: int = 0,
        max_linked_results: int = link_kinds.DEFAULT_LINKED,
        include_invalid_results: bool = False,
    ) -> ToolOutput:
        """Handler `search_memory`: hybrid retrieval over the caller's KB chunks, bounded by rows and tokens.

        `include_invalid_results` lets chunks whose lifecycle has ended be direct results
        (labelled historical; deleted ones never); with `num_hops` each chunk shown carries
        its linked memories, ranked results unchanged.
        """
        _require_text(query, "query")
        link_traversal.check_bounds(num_hops, max_linked_results)
        asked = self.caps.rows(max_results if max_results is not None else kb_search.DEFAULT_RESULTS)
        hits = self.search_chunks(
            identity, query, collection=collection, limit=asked + 1, include_ended=include_invalid_results
        )
        notes, images = {}, {}
        linked, linked_more = None, False
        if hits:
            now = now_iso()
            with self.backend.session(identity, now=now) as s:
                images = kb_images.images_of_documents(s, (h.document_id for h in hits), now)
                if any(h.source for h in hits):
                    notes = stale.stale_facts(s, {h.id: [h.source] for h in hits if h.source}, now)
                if num_hops:
                    found = link_traversal.traverse(
                        s,
                        [("knowledge_base_chunk", h.id) for h in hits[:asked]],
                        now,
                        hops=num_hops,
                        limit=max_linked_results,
                    )
                    linked, linked_more = link_traversal.bounded(found, max_linked_results)
        return render_hits(
            hits,
            query=query,
            collection=collection,
            asked=asked,
            max_tokens=self._result_tokens(identity),
            annotations=notes,
            images=images,
            linked=linked,
            linked_more=linked_more,
            cell_chars=self.caps.cell_chars,
        )

    def search_chunks(
        self,
        identity: Identity,
        query: str,
        *,
        collection: str | None = None,
        document_id: str | None = None,
        limit: int = 10,
        methods: tuple[str, ...] = kb_search.METHODS,
        include_ended: bool = False,
    ) -> list[kb_search.SearchHit]:
        """Ranked chunks (lexical, vector or both fused) among those the caller may see; with
        `include_ended` also those whose lifecycle has ended (never deleted ones)."""
        _require_text(query, "query")
        embedder = self.embedder
        with self.backend.session(identity) as s:
            return kb_search.search(
                s,
                embedder,
                query,
                now_iso(),
                limit=limit,
                methods=methods,
                filters=kb_search.SearchFilters(collection, document_id, include_ended),
            )

    def search_sources(self, identity: Identity, query: str, *, policy: dict[str, Any] | None = None) -> ToolOutput:
        """Handler `search` (ChatGPT): search_memory's retrieval as `{"results": [{id, title, url}]}`."""
        _require_text(query, "query")
        hits = self.search_chunks(identity, query, limit=self.caps.rows(kb_search.DEFAULT_RESULTS))
        hits = kb_sources.relevant(hits, query, self.caps.search_min_cosine)
        with self.backend.session(identity) as s:
            sources = kb_sources.document_sources(s, (h.document_id for h in hits))
        return kb_sources.render_search(
            hits, sources, public_base=(policy or {}).get("public_links"), max_tokens=self._result_tokens(identity)
        )

    def fetch_source(self, identity: Identity, id: str, *, policy: dict[str, Any] | None = None) -> ToolOutput:
        """Handler `fetch` (ChatGPT): a chunk or document the caller can see now, by id, whoever issued it.

        No context window is asked: the wall is the authority. An id that is absent, no longer
        current or another tenant's or user's is the same NotVisible.
        """
        _require_text(id, "id")
        now = now_iso()
        with self.backend.session(identity, now=now) as s:
            item = kb_sources.read_item(s, id, now)
            if item is None:
                raise NotVisible(f"{id!r} is no knowledge-base chunk or document this caller can see now")
            used = (
                [(item["source_table"], item["source_id"], int(item["source_version"] or 0))]
                if item["source_id"]
                else []
            )
            notes = stale.stale_facts(s, {id: used}, now) if used else {}
        return kb_sources.render_fetch(
            item,
            public_base=(policy or {}).get("public_links"),
            max_tokens=self._result_tokens(identity),
            stale=notes.get(id, ()),
        )

    def ingest_file(
        self,
        identity: Identity,
        path: str | Path,
        *,
        collection: str = "default",
        user_id: str | None = None,
        agent_id: str | None = None,
        settings: ChunkSettings = ChunkSettings(),
        description: str | None = None,
    ) -> kb_ingest.IngestResult:
        """Parse, chunk, embed and store one file; a no-op when it is unchanged since the last ingest.

        An image file (.png, .jpg, .jpeg, .webp, .gif) is stored with its bytes; what search finds
        is `description` (else a sidecar NAME.txt or NAME.md beside it) plus its file name.
        """
        if is_image_path(path):
            return kb_images.ingest_image(
                lambda: self.backend.session(identity),
                identity,
                path,
                self.embedder,
                now_iso(),
                collection=collection,
                user_id=user_id,
                agent_id=agent_id,
                description=description,
                settings=settings,
                max_bytes=self.kb.max_image_bytes,
            )
        if description is not None:
            raise InvalidArgument(
                f"a description is for image files only; {Path(path).name} is not one",
                field="description",
                hint="Leave --description out for text files.",
            )
        return kb_ingest.ingest_path(
            lambda: self.backend.session(identity),
            identity,
            path,
            self.embedder,
            now_iso(),
            collection=collection,
            user_id=user_id,
            agent_id=agent_id,
            settings=settings,
        )

    def ingest_text(
        self,
        identity: Identity,
        *,
        title: str,
        text: str,
        source_uri: str,
        collection: str = "default",
        mime_type: str = "text/plain",
        user_id: str | None = None,
        agent_id: str | None = None,
        settings: ChunkSettings = ChunkSettings(),
    ) -> kb_ingest.IngestResult:
        """Store already-parsed text as a document (replacing that source's earlier chunks)."""
        _require_text(text, "text")
        return kb_ingest.ingest_text(
            lambda: self.backend.session(identity),
            identity,
            self.embedder,
            now_iso(),
            title=title,
            text=text,
            source_uri=source_uri,
            mime_type=mime_type,
            collection=collection,
            user_id=user_id,
            agent_id=agent_id,
            settings=settings,
        )

    def embed_missing(self, identity: Identity) -> int:
        """Embed the tenant's chunks that have no embedding from the current embedder (demo rows)."""
        with self.backend.session(identity) as s, s.transaction():
            return kb_ingest.embed_missing(s, self.embedder)

    def reembed(self, identity: Identity, batch: int = 64) -> Iterator[tuple[int, int]]:
        """Re-embed the tenant's chunks whose embedding is not from the current embedder, `batch` chunks
        per transaction; yields (done, total) after each. Resumable: a chunk stored keeps its new
        embedding, so a run stopped part way and started again does only what is left."""
        with self.backend.session(identity) as s:
            rows = kb_ingest.chunks_to_embed(s, self.embedder)
        yield 0, len(rows)
        for start in range(0, len(rows), batch):
            with self.backend.session(identity) as s, s.transaction():
                kb_ingest.embed_chunks(s, self.embedder, rows[start : start + batch])
            yield min(start + batch, len(rows)), len(rows)

    # -- call log ----------------------------------------------------------
    def log_call(self, identity: Identity, record: CallRecord) -> None:
        """Write the call's mcp_call_log row in its own session, after the call's own work."""
        with self.backend.session(identity) as s:
            calllog.write(s, identity, record, self.caps.result_log_chars)

    def recent_calls(
        self, identity: Identity, *, tool: str | None = None, status: str | None = None, limit: int = 20
    ) -> list[Row]:
        with self.backend.session(identity) as s:
            rows, _ = s.fetch_page("calllog_recent", limit, tool=tool, status=status)
            return rows


def _require_text(value: Any, field: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{field} must be a non-empty string", field=field)
