"""The `memory` tool's six commands over the database, one memory store at a time.

Contract: Anthropic's memory tool, memory_20250818. The texts, edits and path rules are
the anthropic SDK 2.16.0's (module `anthropic.lib.tools._beta_builtin_memory_tool`, kept in
texts.py and paths.py); this module keeps their order of checks and
stores files as memory_file rows of one memory_store. Contract errors are returned as
text the model reads (ToolOutput.is_error), never raised past the manager.

Transactions: every write command runs in one session.transaction(), which
on SQLite is BEGIN IMMEDIATE, so it reads the file, checks it and writes it under the
write lock: a str_replace whose target text another writer changed fails with the
contract's "did not appear verbatim" text instead of overwriting. Each write is also a
compare-and-set on memory_file.version and is verified before commit, for backends
whose transactions do not lock up front. `create` keeps the contract's O_EXCL rule:
when two creates of one new path race, the first to commit creates the file and the
second is told "File ... already exists"; nothing is overwritten silently.

Directories exist only as prefixes of file paths, so a directory appears with its
first file and vanishes with its last; `/memories` itself always exists.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..backend.base import Backend, Row, Session
from ..clock import now_iso
from ..errors import AccessDenied, InvalidArgument, NotFound
from ..identity import Identity
from ..ids import new_id
from ..limits import MemoryFileSettings
from ..output.results import ToolOutput
from ..tokens import count_tokens
from . import texts as texts
from .paths import normalize_memory_path
from .stores import StoreRef
from .texts import ROOT, MemoryToolError

#: The commands and their (required, optional) parameters, as in the contract.
COMMANDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "view": (("path",), ("view_range",)),
    "create": (("path", "file_text"), ()),
    "str_replace": (("path", "old_str", "new_str"), ()),
    "insert": (("path", "insert_line", "insert_text"), ()),
    "delete": (("path",), ()),
    "rename": (("old_path", "new_path"), ()),
}
#: Every parameter some command takes, in the order the tool schema lists them.
PARAMETERS = (
    "path",
    "view_range",
    "file_text",
    "old_str",
    "new_str",
    "insert_line",
    "insert_text",
    "old_path",
    "new_path",
)


# --- Texts that are ours (the contract has no caps and no parameter errors) -------------


def _missing_parameter(command: str, name: str) -> str:
    return f"Missing required parameter `{name}` for command `{command}`."


def _unused_parameter(command: str, name: str) -> str:
    required, optional = COMMANDS[command]
    return f"Parameter `{name}` is not used by command `{command}`; it takes: {', '.join(required + optional)}."


def _unknown_command(command: str) -> str:
    return f"Unknown command `{command}`. Use one of: {', '.join(COMMANDS)}."


_TIDY = "Keep memory small: merge related files or delete outdated ones, then try again."


def file_too_large(path: str, chars: int, cap: int) -> str:
    return (
        f"File {path} was not written: it would hold {chars:,} characters, over the limit of "
        f"{cap:,} characters per memory file. Split it, or merge and shorten old notes. {_TIDY}"
    )


def too_many_files(path: str, files: int) -> str:
    return f"File {path} was not created: this memory store already holds {files:,} files, its limit. {_TIDY}"


def store_full(path: str, chars: int, cap: int) -> str:
    return (
        f"File {path} was not written: the memory store would hold {chars:,} characters, over its "
        f"limit of {cap:,}. {_TIDY}"
    )


def _ancestor_is_file(action: str, ancestor: str) -> str:
    return f"Cannot {action}: {ancestor} is a file, not a directory."


def _changed_underneath(path: str) -> str:
    # The compare-and-set backstop (unreachable on SQLite, where the write lock is held),
    # worded like the SDK's "no longer exists" race message so the model views it again.
    return f"The file {path} changed while this command ran (another writer saved it first); nothing was written."


# --- The commands ---------------------------------------------------------------------


class MemoryFiles:
    """The six commands, and the operator's admin commands, over one store of one tenant."""

    def __init__(self, session: Session, identity: Identity, store: StoreRef, caps: MemoryFileSettings, now: str):
        self.s = session
        self.identity = identity
        self.store = store
        self.caps = caps
        self.now = now
        self.author = identity.principal or identity.user or identity.agent

    def run(self, command: str, params: dict[str, Any], allowed: list[str] | None = None) -> ToolOutput:
        """One tool command; contract errors come back as an is_error ToolOutput."""
        if allowed is not None and command not in allowed:
            # The advertised schema already lists only the allowed commands; this is the wall.
            raise AccessDenied(f"memory command {command!r} is not allowed by this toolbox row")
        try:
            if command not in COMMANDS:
                raise MemoryToolError(_unknown_command(command))
            required, optional = COMMANDS[command]
            for name in required:
                if params.get(name) is None:
                    raise MemoryToolError(_missing_parameter(command, name))
            for name, value in params.items():
                if name not in required + optional and value is not None:
                    raise MemoryToolError(_unused_parameter(command, name))
            args = {k: v for k, v in params.items() if k in required + optional}
            text, rows = getattr(self, f"_{command}")(**args)
        except MemoryToolError as exc:
            return ToolOutput(text=exc.text, tokens=count_tokens(exc.text), is_error=True, status="invalid")
        return ToolOutput(text=text, rows=rows, tokens=count_tokens(text))

    def _path(self, raw: str) -> str:
        return normalize_memory_path(raw, max_len=self.caps.max_path_chars)

    # -- view ---------------------------------------------------------------
    def _view(self, path: str, view_range: list[int] | None = None) -> tuple[str, int]:
        path = self._path(path)
        store_id = self._store_id(create=False)
        if path != ROOT and store_id is not None:
            row = self.s.fetch_one("memory_file_get", store_id=store_id, path=path)
            if row is not None:
                return texts.render_file(path, row["content"], view_range), 1
        entries = self._files_under(store_id, path)
        if path != ROOT and not entries:
            raise MemoryToolError(texts.not_found(path))
        # As in the SDK, a view_range on a directory is ignored.
        return texts.render_directory(path, [(r["path"], r["size_bytes"]) for r in entries]), len(entries)

    # -- create -------------------------------------------------------------
    def _create(self, path: str, file_text: str) -> tuple[str, int]:
        path = self._path(path)
        with self.s.transaction():
            store_id = self._store_id(create=True)
            if self._kind(store_id, path)[0] != "missing":
                raise MemoryToolError(texts.already_exists(path))
            self._refuse_file_ancestor(store_id, path, f"create {path}")
            self._check_caps(store_id, path, len(file_text), old_chars=0, adds_file=True)
            self._insert_file(store_id, path, file_text)
        return texts.created(path), 1

    # -- str_replace and insert ----------------------------------------------
    def _str_replace(self, path: str, old_str: str, new_str: str) -> tuple[str, int]:
        path = self._path(path)
        with self.s.transaction():
            row = self._existing_file(path)
            new_text, message = texts.apply_str_replace(path, row["content"], old_str, new_str)
            self._rewrite(row, new_text)
        return message, 1

    def _insert(self, path: str, insert_line: int, insert_text: str) -> tuple[str, int]:
        path = self._path(path)
        with self.s.transaction():
            row = self._existing_file(path)
            new_text, message = texts.apply_insert(path, row["content"], insert_line, insert_text)
            self._rewrite(row, new_text)
        return message, 1

    def _existing_file(self, path: str) -> Row:
        """The file to edit, read inside the caller's transaction; the SDK's errors otherwise."""
        store_id = self._store_id(create=False)
        kind, row = self._kind(store_id, path)
        if kind == "missing":
            raise MemoryToolError(texts.not_found(path))
        if kind != "file":
            raise MemoryToolError(texts.not_a_file(path))
        return {**row, "store_id": store_id}

    # -- delete -------------------------------------------------------------
    def _delete(self, path: str) -> tuple[str, int]:
        path = self._path(path)
        if path == ROOT:
            raise MemoryToolError(texts.CANNOT_DELETE_ROOT)
        with self.s.transaction():
            store_id = self._store_id(create=False)
            kind, row = self._kind(store_id, path)
            if kind == "missing":
                raise MemoryToolError(texts.not_found(path, suffix=False))
            victims = [row] if kind == "file" else self._files_under(store_id, path)
            for victim in victims:
                self.s.execute("memory_file_delete", id=victim["id"], version=victim["version"])
            if self._kind(store_id, path)[0] != "missing":  # a delete lost a compare-and-set
                raise MemoryToolError(_changed_underneath(path))
        return texts.deleted(path), len(victims)

    # -- rename -------------------------------------------------------------
    def _rename(self, old_path: str, new_path: str) -> tuple[str, int]:
        old, new = self._path(old_path), self._path(new_path)
        if old == ROOT:
            raise MemoryToolError(texts.CANNOT_RENAME_ROOT)
        with self.s.transaction():
            store_id = self._store_id(create=False)
            # The SDK's order: the destination is checked before the source.
            if new == ROOT or self._kind(store_id, new)[0] != "missing":
                raise MemoryToolError(texts.destination_exists(new))
            kind, row = self._kind(store_id, old)
            if kind == "missing":
                raise MemoryToolError(texts.not_found(old, suffix=False))
            if kind == "dir" and new.startswith(old + "/"):
                raise MemoryToolError(f"Cannot rename {old} to {new}: a directory cannot move inside itself.")
            self._refuse_file_ancestor(store_id, new, f"rename {old} to {new}")
            moves = [row] if kind == "file" else self._files_under(store_id, old)
            for moved in moves:
                target = new + moved["path"][len(old) :]
                if len(target.encode("utf-8")) > self.caps.max_path_chars:
                    raise MemoryToolError(texts.would_escape(target))
                self.s.execute(
                    "memory_file_move",
                    id=moved["id"],
                    version=moved["version"],
                    new_path=target,
                    updated_by=self.author,
                    now=self.now,
                )
                self._verify(store_id, target, moved["id"], moved["version"] + 1)
        return texts.renamed(old, new), len(moves)

    # -- operator commands (memgate memory ...): MemgateErrors, not texts -----
    def list_files(self, path: str = ROOT) -> list[Row]:
        path = self._admin_path(path)
        store_id = self._store_id(create=False)
        if path != ROOT and store_id is not None:
            row = self.s.fetch_one("memory_file_get", store_id=store_id, path=path)
            if row is not None:
                return [{k: v for k, v in row.items() if k != "content"}]
        return self._files_under(store_id, path)

    def read(self, path: str) -> Row:
        path = self._admin_path(path)
        store_id = self._store_id(create=False)
        row = self.s.fetch_one("memory_file_get", store_id=store_id, path=path) if store_id else None
        if row is None:
            raise NotFound(
                f"no file {path} in store {self.store.key}",
                hint=f"`memgate memory ls -t {self.identity.tenant} --store {self.store.key}` lists its files.",
            )
        return row

    def put(self, path: str, text: str) -> str:
        """Create or overwrite a file (the operator's `put` is not O_EXCL); returns 'created' or 'updated'."""
        path = self._admin_path(path)
        try:
            with self.s.transaction():
                store_id = self._store_id(create=True)
                kind, row = self._kind(store_id, path)
                if kind in ("dir", "root"):
                    raise MemoryToolError(f"{path} is a directory.")
                if kind == "file":
                    self._rewrite({**row, "store_id": store_id}, text)
                    return "updated"
                self._refuse_file_ancestor(store_id, path, f"create {path}")
                self._check_caps(store_id, path, len(text), old_chars=0, adds_file=True)
                self._insert_file(store_id, path, text)
                return "created"
        except MemoryToolError as exc:
            raise InvalidArgument(exc.text, field="path") from None

    def remove(self, path: str) -> int:
        """Delete a file, or a directory with everything below it; returns the files deleted."""
        try:
            return self._delete(path)[1]
        except MemoryToolError as exc:
            raise InvalidArgument(exc.text, field="path") from None

    def expire(self, cutoff: str) -> list[str]:
        """Delete the files not written since `cutoff`; returns their paths."""
        with self.s.transaction():
            store_id = self._store_id(create=False)
            if store_id is None:
                return []
            rows = self.s.fetch_all("memory_file_expired", store_id=store_id, cutoff=cutoff)
            for r in rows:
                self.s.execute("memory_file_delete", id=r["id"], version=r["version"])
        return [r["path"] for r in rows]

    def clear(self) -> int:
        """Delete every file and the store itself; returns the files deleted."""
        with self.s.transaction():
            store_id = self._store_id(create=False)
            if store_id is None:
                return 0
            files = self.s.fetch_one("memory_store_totals", store_id=store_id)["files"]
            self.s.execute("memory_file_delete_all", store_id=store_id)
            self.s.execute("memory_store_delete", store_id=store_id)
        return files

    def _admin_path(self, raw: str) -> str:
        try:
            return self._path(raw)
        except MemoryToolError as exc:
            raise InvalidArgument(exc.text, field="path") from None

    # -- storage ------------------------------------------------------------
    def _store_id(self, *, create: bool) -> str | None:
        row = self.s.fetch_one("memory_store_get", store_key=self.store.key)
        if row is not None:
            return row["id"]
        if not create:
            return None
        # Only inside a write transaction: a racing first write of the same store waits
        # for the lock and then finds this row (and the unique index backs that up).
        store_id = new_id("mst")
        self.s.insert(
            "memory_store",
            {
                "id": store_id,
                "tenant_id": self.identity.tenant,
                "user_id": self.store.user_id,
                "agent_id": self.store.agent_id,
                "thread_id": self.store.thread_id,
                "store_key": self.store.key,
                "scope": self.store.scope,
                "created_by": self.author,
                "created_at": self.now,
            },
        )
        return store_id

    def _kind(self, store_id: str | None, path: str) -> tuple[str, Row | None]:
        """'root', 'file' (with its row), 'dir' (some file lies below it) or 'missing'."""
        if path == ROOT:
            return "root", None
        if store_id is None:
            return "missing", None
        row = self.s.fetch_one("memory_file_get", store_id=store_id, path=path)
        if row is not None:
            return "file", row
        below = self.s.fetch_one("memory_file_first_under", store_id=store_id, prefix=path + "/")
        return ("dir" if below else "missing"), None

    def _files_under(self, store_id: str | None, path: str) -> list[Row]:
        if store_id is None:
            return []
        return self.s.fetch_all("memory_file_list", store_id=store_id, prefix=path.rstrip("/") + "/")

    def _refuse_file_ancestor(self, store_id: str, path: str, action: str) -> None:
        """A file cannot sit below a file: /memories/a.md/b.md when /memories/a.md is a file."""
        parts = path[len(ROOT) + 1 :].split("/")
        for depth in range(1, len(parts)):
            ancestor = "/".join([ROOT, *parts[:depth]])
            if self.s.fetch_one("memory_file_get", store_id=store_id, path=ancestor) is not None:
                raise MemoryToolError(_ancestor_is_file(action, ancestor))

    def _check_caps(self, store_id: str, path: str, new_chars: int, *, old_chars: int, adds_file: bool) -> None:
        """Refuse a write that grows past a cap. A write that shrinks is always allowed, so an
        operator may lower a cap and the model can still trim files down to it."""
        caps = self.caps
        if new_chars > caps.max_file_chars and new_chars > old_chars:
            raise MemoryToolError(file_too_large(path, new_chars, caps.max_file_chars))
        if not adds_file and caps.max_store_chars is None:
            return
        totals = self.s.fetch_one("memory_store_totals", store_id=store_id)
        if adds_file and totals["files"] >= caps.max_files:
            raise MemoryToolError(too_many_files(path, totals["files"]))
        after = totals["chars"] - old_chars + new_chars
        if caps.max_store_chars is not None and after > caps.max_store_chars and new_chars > old_chars:
            raise MemoryToolError(store_full(path, after, caps.max_store_chars))

    def _insert_file(self, store_id: str, path: str, text: str) -> None:
        self.s.insert(
            "memory_file",
            {
                "id": new_id("mf"),
                "tenant_id": self.identity.tenant,
                "store_id": store_id,
                "path": path,
                "content": text,
                "size_chars": len(text),
                "size_bytes": len(text.encode("utf-8")),
                "version": 1,
                "created_by": self.author,
                "created_at": self.now,
                "updated_by": self.author,
                "updated_at": self.now,
            },
        )

    def _rewrite(self, row: Row, text: str) -> None:
        self._check_caps(row["store_id"], row["path"], len(text), old_chars=row["size_chars"], adds_file=False)
        self.s.execute(
            "memory_file_update",
            id=row["id"],
            version=row["version"],
            content=text,
            size_chars=len(text),
            size_bytes=len(text.encode("utf-8")),
            updated_by=self.author,
            now=self.now,
        )
        self._verify(row["store_id"], row["path"], row["id"], row["version"] + 1, content=text)

    def _verify(self, store_id: str, path: str, file_id: str, version: int, *, content: str | None = None) -> None:
        """The compare-and-set took: the file holds what this write made (else the caller rolls back)."""
        got = self.s.fetch_one("memory_file_get", store_id=store_id, path=path)
        if (
            got is None
            or got["id"] != file_id
            or got["version"] != version
            or (content is not None and got["content"] != content)
        ):
            raise MemoryToolError(_changed_underneath(path))


@contextmanager
def open_store(
    backend: Backend, identity: Identity, store: StoreRef, caps: MemoryFileSettings
) -> Iterator[MemoryFiles]:
    """MemoryFiles over a fresh session for one store (operator commands)."""
    with backend.session(identity) as s:
        yield MemoryFiles(s, identity, store, caps, now_iso())


__all__ = ["COMMANDS", "PARAMETERS", "MemoryFiles", "file_too_large", "open_store", "store_full", "too_many_files"]
