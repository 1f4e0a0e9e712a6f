"""`memgate ingest` and `memgate search`: fill the knowledge base from files, and query it as an agent would."""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

import click

from memgate.manager import (
    FAILED,
    NEW,
    REPLACED,
    SUPPORTED_EXTENSIONS,
    UNCHANGED,
    ChunkSettings,
    IngestResult,
    MemgateError,
    count_tokens,
)

from .common import (
    AGENT_ID,
    USER_ID,
    friendly_errors,
    open_manager,
    operator_identity,
    require_tenant,
    settings_from,
    tenant_option,
)

log = logging.getLogger("memgate.ingest")
#: the chunk defaults, defined once in manager/limits.py
_CHUNK = ChunkSettings()


def find_files(paths: tuple[str, ...]) -> tuple[dict[Path, str], list[Path]]:
    """The files named plus the supported files under each folder named (sorted, each once), each
    with the name the progress bar shows (its path relative to the folder given), and the visible
    files in those folders that were passed over for their type."""
    found: dict[Path, str] = {}
    passed_over: dict[Path, None] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                relative = child.relative_to(path)
                if not child.is_file() or any(p.startswith(".") for p in relative.parts):
                    continue
                if child.suffix.lower() in SUPPORTED_EXTENSIONS:
                    found.setdefault(child, relative.as_posix())
                else:
                    passed_over.setdefault(child, None)
        else:
            found.setdefault(path, raw)  # a missing or unsupported file is reported as failed
    return found, list(passed_over)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def summary_lines(results: list[IngestResult], seconds: float, passed_over: list[Path] = ()) -> list[str]:
    count = {s: sum(r.status == s for r in results) for s in (NEW, UNCHANGED, REPLACED, FAILED)}
    lines = [f"{len(results)} file(s): {count[NEW]} new, {count[UNCHANGED]} unchanged, "
             f"{count[REPLACED]} replaced, {count[FAILED]} failed; "
             f"{sum(r.chunks for r in results)} chunk(s), {sum(r.tokens for r in results)} token(s) "
             f"written in {seconds:.1f}s"]
    lines += [f"failed: {r.source}: {r.reason}" for r in results if r.status == FAILED]
    if passed_over:
        names = ", ".join(p.name for p in passed_over[:10]) + (f" and {len(passed_over) - 10} more"
                                                               if len(passed_over) > 10 else "")
        lines.append(f"skipped {len(passed_over)} file(s) of a type it cannot read: {names} "
                     f"(supported: {', '.join(SUPPORTED_EXTENSIONS)})")
    return lines


def register(cli: click.Group) -> None:
    @cli.command("ingest")
    @click.argument("paths", nargs=-1, required=True, type=click.Path())
    @tenant_option()
    @click.option("--collection", default="default", show_default=True, metavar="NAME",
                  help="The collection the documents join.")
    @click.option("--user", "-u", metavar="ID", type=USER_ID,
                  help="Only this user may find them (default: the whole tenant).")
    @click.option("--agent", metavar="ID", type=AGENT_ID, help="Only this agent may find them.")
    @click.option("--chunk-tokens", type=click.IntRange(16, 4000), default=_CHUNK.max_tokens, show_default=True,
                  help="Largest chunk, in o200k_base tokens.")
    @click.option("--overlap-tokens", type=click.IntRange(0, 1000), default=_CHUNK.overlap_tokens,
                  show_default=True, help="Tokens a chunk repeats from the one before it.")
    @click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
    @click.pass_context
    @friendly_errors
    def ingest(ctx, paths, tenant, collection, user, agent, chunk_tokens, overlap_tokens, quiet) -> None:
        """Add .txt, .md, .html and .pdf files (or folders of them) to a tenant's knowledge base.

        Each file is parsed, cut into token-bounded chunks, embedded and indexed. An
        unchanged file is skipped; a changed one replaces its chunks in one transaction.
        A file that cannot be read is reported and the others still go in. The tenant
        must have been set up first (`memgate init --tenant T`).

        \b
        Examples:
          memgate ingest ./handbook --tenant acme --collection handbook
          memgate ingest report.pdf notes.md -t acme --user jane
        """
        if overlap_tokens >= chunk_tokens:
            raise click.BadParameter("must be smaller than --chunk-tokens", param_hint="--overlap-tokens")
        # pypdf logs what it repairs; a file it cannot read is reported in the summary instead.
        logging.getLogger("pypdf").setLevel(logging.ERROR)
        files, passed_over = find_files(paths)
        chunking = ChunkSettings(max_tokens=chunk_tokens, overlap_tokens=overlap_tokens)
        identity = operator_identity(tenant, user, agent)  # the wall lets only that scope write its rows
        settings = settings_from(ctx)
        manager = open_manager(settings)
        results: list[IngestResult] = []
        started = time.perf_counter()
        try:
            require_tenant(manager, settings, identity)
            # Load the embedder and the tokenizer before the bar starts, so its first estimate
            # measures ingesting, not start-up; it advances by bytes, which track the work better
            # than a count of files of any size.
            manager.embedder.embed(["warm up"])
            count_tokens("warm up")
            sizes = {path: _size(path) for path in files}
            with click.progressbar(length=max(sum(sizes.values()), 1), label="ingesting", file=sys.stderr,
                                   show_percent=True, hidden=quiet, item_show_func=lambda shown: shown) as bar:
                for path, shown in files.items():
                    bar.update(0, shown)
                    results.append(_ingest_one(manager, identity, path, collection, user, agent, chunking))
                    bar.update(sizes[path], shown)
        finally:
            manager.close()
        for line in summary_lines(results, time.perf_counter() - started, passed_over):
            click.echo(line)
        if any(r.status == FAILED for r in results):
            ctx.exit(1)

    @cli.command("search")
    @click.argument("query")
    @tenant_option()
    @click.option("--user", "-u", metavar="ID", type=USER_ID,
                  help="Search as this user (sees the user's own documents too).")
    @click.option("--agent", metavar="ID", type=AGENT_ID, help="Search as this agent.")
    @click.option("--collection", metavar="NAME", help="Only this collection.")
    @click.option("--max-results", "-n", type=click.IntRange(1, 50), help="At most this many chunks.")
    @click.option("--json", "as_json", is_flag=True, help="Print the ranked hits with their score parts as JSON.")
    @click.pass_context
    @friendly_errors
    def search(ctx, query, tenant, user, agent, collection, max_results, as_json) -> None:
        """Search a tenant's knowledge base as the search_memory tool does, and show what the agent would see.

        \b
        Example:
          memgate search "helios ndcg re-run" --tenant acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            out = manager.search_memory(operator_identity(tenant, user, agent), query, collection=collection,
                                        max_results=max_results)
        finally:
            manager.close()
        click.echo(json.dumps(out.structured or {"results": []}, indent=2) if as_json else out.text)


def _ingest_one(manager, identity, path: Path, collection, user, agent, settings) -> IngestResult:
    try:
        return manager.ingest_file(identity, path, collection=collection, user_id=user, agent_id=agent,
                                   settings=settings)
    except MemgateError as exc:
        return IngestResult(str(path), FAILED, reason=exc.with_hint())
    except OSError as exc:
        return IngestResult(str(path), FAILED, reason=f"cannot read it: {exc.strerror or exc}")
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the others
        log.debug("ingest of %s failed", path, exc_info=True)
        return IngestResult(str(path), FAILED, reason=f"unexpected {type(exc).__name__}: {exc}")
