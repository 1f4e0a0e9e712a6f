"""Entry points for the memory tool's files."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any

from ..clock import now_iso
from ..files.commands import MemoryFiles, open_store
from ..files.stores import resolve_store, store_from_key
from ..identity import Identity
from ..output.results import ToolOutput
from .core import ManagerCore


class MemoryFileMethods(ManagerCore):
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
