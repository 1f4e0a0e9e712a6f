"""What every entry point shares: the backend, the settings, the embedder, the caller's budget.

Every group of methods in this folder is a mixin over ManagerCore, so each names only
what it uses of it; MemoryManager (facade/__init__.py) composes them.
"""

from __future__ import annotations

from typing import Any

from ..backend.base import Backend, Row
from ..claims import guidelines
from ..clock import now_iso
from ..context import rounds as context_rounds
from ..errors import InvalidArgument
from ..identity import Identity
from ..kb.embed import Embedder, default_embedder
from ..limits import CapsSettings, ContextBudget, ContextSettings, KbSettings, MemoryFileSettings


class ManagerCore:
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

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self.backend.database_embedder() or default_embedder()
        return self._embedder

    def guidelines(self, identity: Identity, key: str | None = None) -> dict[str, Row]:
        with self.backend.session(identity) as s:
            return guidelines.current_guidelines(s, now_iso(), key)

    def context_budget(self, identity: Identity) -> ContextBudget:
        """The tenant's `context_budget` guideline, typed (defaults when it has none)."""
        row = self.guidelines(identity, guidelines.BUDGET_KEY).get(guidelines.BUDGET_KEY)
        return ContextBudget.from_guideline(guidelines.guideline_json(row))

    def _result_tokens(self, identity: Identity, budget: ContextBudget | None = None) -> int:
        """The token bound of one tool result for this caller now (lower inside a window's tool round)."""
        bound = (budget or self.context_budget(identity)).max_tool_result_tokens
        cap = context_rounds.result_cap()
        return bound if cap is None else min(bound, cap)


def require_text(value: Any, field: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidArgument(f"{field} must be a non-empty string", field=field)
