"""`memgate ingest` and `memgate search`: fill the knowledge base from files, and query it as an agent would."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

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

if TYPE_CHECKING:
    from memgate.manager import IngestResult

log = logging.getLogger("memgate.ingest")
#: what --help says of the chunk defaults, which manager/limits.py's ChunkSettings defines (its
#: --help imports no manager; tests/cli/test_cli_startup.py checks the figures are ChunkSettings')
CHUNK_DEFAULTS_SHOWN = {"max_tokens": 300, "overlap_tokens": 40}


def readable() -> tuple[str, ...]:
    """Every file type ingest reads: documents, and images (stored with a description)."""
    from memgate.manager import IMAGE_EXTENSIONS, SUPPORTED_EXTENSIONS

    return tuple(sorted(SUPPORTED_EXTENSIONS + IMAGE_EXTENSIONS))


def find_files(paths: tuple[str, ...]) -> tuple[dict[Path, str], list[Path]]:
    """The files named plus the supported files under each folder named (sorted, each once), each
    with the name the progress bar shows (its path relative to the folder given), and the visible
    files in those folders that were passed over for their type. In a folder, an image's sidecar
    (photo.png.txt, photo.txt, ...) is its description, not a document of its own."""
    from memgate.manager import is_image_path, sidecar_paths

    kinds = readable()
    found: dict[Path, str] = {}
    walked: set[Path] = set()
    passed_over: dict[Path, None] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                relative = child.relative_to(path)
                if not child.is_file() or any(p.startswith(".") for p in relative.parts):
                    continue
                if child.suffix.lower() in kinds:
                    found.setdefault(child, relative.as_posix())
                    walked.add(child)
                else:
                    passed_over.setdefault(child, None)
        else:
            found.setdefault(path, raw)  # a missing or unsupported file is reported as failed
    sidecars = {p for image in found if is_image_path(image) for p in sidecar_paths(image)} & walked
    return {p: shown for p, shown in found.items() if p not in sidecars}, list(passed_over)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def summary_lines(results: list[IngestResult], seconds: float, passed_over: Sequence[Path] = ()) -> list[str]:
    from memgate.manager import FAILED, NEW, NOT_SEARCHABLE, REPLACED, UNCHANGED

    count = {s: sum(r.status == s for r in results) for s in (NEW, UNCHANGED, REPLACED, FAILED)}
    lines = [
        f"{len(results)} file(s): {count[NEW]} new, {count[UNCHANGED]} unchanged, "
        f"{count[REPLACED]} replaced, {count[FAILED]} failed; "
        f"{sum(r.chunks for r in results)} chunk(s), {sum(r.tokens for r in results)} token(s) "
        f"written in {seconds:.1f}s"
    ]
    lines += [f"failed: {r.source}: {r.reason}" for r in results if r.status == FAILED]
    lines += [
        f"image {r.source}: {NOT_SEARCHABLE} (give --description or a sidecar {Path(r.source).name}.txt)"
        for r in results
        if r.status != FAILED and r.reason == NOT_SEARCHABLE
    ]
    if passed_over:
        names = ", ".join(p.name for p in passed_over[:10]) + (
            f" and {len(passed_over) - 10} more" if len(passed_over) > 10 else ""
        )
        lines.append(
            f"skipped {len(passed_over)} file(s) of a type it cannot read: {names} (supported: {', '.join(readable())})"
        )
    return lines


def register(cli: click.Group) -> None:
    @cli.command("ingest")
    @click.argument("paths", nargs=-1, required=True, type=click.Path())
    @tenant_option()
    @click.option(
        "--collection", default="default", show_default=True, metavar="NAME", help="The collection the documents join."
    )
    @click.option(
        "--user", "-u", metavar="ID", type=USER_ID, help="Only this user may find them (default: the whole tenant)."
    )
    @click.option("--agent", metavar="ID", type=AGENT_ID, help="Only this agent may find them.")
    @click.option(
        "--chunk-tokens",
        type=click.IntRange(16, 4000),
        help=f"Largest chunk, in o200k_base tokens.  [default: {CHUNK_DEFAULTS_SHOWN['max_tokens']}]",
    )
    @click.option(
        "--overlap-tokens",
        type=click.IntRange(0, 1000),
        help=f"Tokens a chunk repeats from the one before it.  [default: {CHUNK_DEFAULTS_SHOWN['overlap_tokens']}]",
    )
    @click.option(
        "--description",
        "-d",
        metavar="TEXT",
        help="What the image files named show: the text search finds them by (else a sidecar "
        "NAME.txt or NAME.md beside each).",
    )
    @click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
    @click.pass_context
    @friendly_errors
    def ingest(ctx, paths, tenant, collection, user, agent, chunk_tokens, overlap_tokens, description, quiet) -> None:
        """Add .txt, .md, .html, .pdf and image files (or folders of them) to a tenant's knowledge base.

        Each document is parsed, cut into token-bounded chunks, embedded and indexed. An
        image (.png, .jpg, .jpeg, .webp, .gif) is stored with its bytes; search finds it by
        its description (--description, or a sidecar photo.png.txt, photo.txt or .md beside
        it) plus its file name, and one without a description is stored but not searchable.
        An unchanged file is skipped; a changed one replaces its chunks in one transaction.
        A file that cannot be read is reported and the others still go in. The tenant
        must have been set up first (`memgate init --tenant T`).

        \b
        Examples:
          memgate ingest ./handbook --tenant acme --collection handbook
          memgate ingest report.pdf notes.md -t acme --user jane
          memgate ingest chart.png -t acme -d "Helios nDCG@10 by month, July to September"
        """
        from memgate.manager import FAILED, ChunkSettings, count_tokens, is_image_path

        defaults = ChunkSettings()
        chunk_tokens = defaults.max_tokens if chunk_tokens is None else chunk_tokens
        overlap_tokens = defaults.overlap_tokens if overlap_tokens is None else overlap_tokens
        if overlap_tokens >= chunk_tokens:
            raise click.BadParameter("must be smaller than --chunk-tokens", param_hint="--overlap-tokens")
        # pypdf logs what it repairs; a file it cannot read is reported in the summary instead.
        logging.getLogger("pypdf").setLevel(logging.ERROR)
        files, passed_over = find_files(paths)
        if description is not None and not any(is_image_path(p) for p in files):
            raise click.BadParameter("describes image files, and none is named", param_hint="--description")
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
            with click.progressbar(
                length=max(sum(sizes.values()), 1),
                label="ingesting",
                file=sys.stderr,
                show_percent=True,
                hidden=quiet,
                item_show_func=lambda shown: shown,
            ) as bar:
                for path, shown in files.items():
                    bar.update(0, shown)
                    results.append(
                        _ingest_one(
                            manager,
                            identity,
                            path,
                            collection,
                            user,
                            agent,
                            chunking,
                            description if is_image_path(path) else None,
                        )
                    )
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
    @click.option(
        "--user", "-u", metavar="ID", type=USER_ID, help="Search as this user (sees the user's own documents too)."
    )
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
            out = manager.search_memory(
                operator_identity(tenant, user, agent), query, collection=collection, max_results=max_results
            )
        finally:
            manager.close()
        click.echo(json.dumps(out.structured or {"results": []}, indent=2) if as_json else out.text)


def _ingest_one(
    manager, identity, path: Path, collection, user, agent, settings, description: str | None = None
) -> IngestResult:
    from memgate.manager import FAILED, IngestResult, MemgateError

    try:
        return manager.ingest_file(
            identity,
            path,
            collection=collection,
            user_id=user,
            agent_id=agent,
            settings=settings,
            description=description,
        )
    except MemgateError as exc:
        return IngestResult(str(path), FAILED, reason=exc.with_hint())
    except OSError as exc:
        return IngestResult(str(path), FAILED, reason=f"cannot read it: {exc.strerror or exc}")
    except Exception as exc:
        log.debug("ingest of %s failed", path, exc_info=True)
        return IngestResult(str(path), FAILED, reason=f"unexpected {type(exc).__name__}: {exc}")
