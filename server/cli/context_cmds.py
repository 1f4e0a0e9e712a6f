"""`memgate context`, `memgate manifest ls|show|replay`, `memgate budget show|set`: context windows for operators."""

from __future__ import annotations

import json
from typing import Any

import click

from .common import (
    friendly_errors,
    open_manager,
    operator_identity,
    operator_of,
    scope_options,
    settings_from,
    tenant_option,
)


def register(cli: click.Group) -> None:
    @cli.command("context")
    @click.argument("question")
    @tenant_option()
    @click.option(
        "--intent",
        "-i",
        metavar="INTENT",
        help="An intent of the tenant's context budget, e.g. fact_check or comparison. "
        "Default: general, which every budget has.",
    )
    @scope_options
    @click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON instead of the window.")
    @click.pass_context
    @friendly_errors
    def context(ctx, question, tenant, intent, user, agent, thread, as_json) -> None:
        """Assemble the context window an agent would get for QUESTION, and record its manifest.

        The window is printed on stdout; its manifest id and budget on stderr. Without --intent the
        window is split as the budget's general intent says (`memgate budget show` lists them).

        \b
        Examples:
          memgate context "What do we know about Helios RAG?" -t acme
          memgate context "Is Helios RAG's nDCG@10 really 0.92?" -t acme --intent fact_check
          memgate context "Compare the July and August runs" -t acme -i comparison -u jane --thread helios-review
        """
        from memgate.manager import DEFAULT_INTENT

        manager = open_manager(settings_from(ctx))
        try:
            identity = operator_identity(tenant, user, agent, thread)
            window = manager.assemble_context(identity, question, intent or DEFAULT_INTENT)
        finally:
            manager.close()
        if as_json:
            click.echo(json.dumps(window.manifest, indent=2, sort_keys=True))
            return
        click.echo(window.text)
        a = window.manifest["arithmetic"]
        click.echo(
            f"manifest {window.manifest_id}: {a['total']} of {a['available']} tokens, "
            f"{len(window.manifest['memories'])} memories, {len(window.manifest['exclusions'])} left out "
            f"(memgate manifest show {window.manifest_id} -t {tenant})",
            err=True,
        )

    @cli.group("manifest")
    def manifest() -> None:
        """Context manifests: what each assembled window held, left out and why."""

    @manifest.command("ls")
    @tenant_option()
    @click.option("--limit", "-n", type=click.IntRange(1, 10_000), default=20, show_default=True)
    @click.pass_context
    @friendly_errors
    def ls(ctx, tenant, limit) -> None:
        """List the tenant's latest manifests, newest first.

        \b
        Example:
          memgate manifest ls -t acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            rows = operator_of(manager).context_manifests(tenant, limit)
        finally:
            manager.close()
        for r in rows:
            scope = " ".join(f"{k}={r[k + '_id']}" for k in ("user", "agent", "thread", "session") if r[k + "_id"])
            click.echo(
                f"{r['id']}  {r['created_at']}  {r['intent']:<12} {r['token_count']:>6} tokens  "
                f"{scope or 'tenant'}  {_one_line(r['question'])}"
            )
        if not rows:
            click.echo("(no context windows recorded)")

    @manifest.command("show")
    @click.argument("manifest_id")
    @tenant_option()
    @click.option("--json", "as_json", is_flag=True, help="The manifest as stored, as JSON.")
    @click.pass_context
    @friendly_errors
    def show(ctx, manifest_id, tenant, as_json) -> None:
        """Show a manifest readably: the budget arithmetic, every memory, every exclusion and its rule.

        MANIFEST_ID is a manifest id (`memgate manifest ls`), or `latest` for the tenant's newest.

        \b
        Example:
          memgate manifest show latest -t acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            manifest_id = _resolve(manager, tenant, manifest_id)
            m = manager.context_manifest(operator_of(manager).context_owner(tenant, manifest_id), manifest_id)
        finally:
            manager.close()
        click.echo(json.dumps(m, indent=2, sort_keys=True) if as_json else describe(m))

    @manifest.command("replay")
    @click.argument("manifest_id")
    @tenant_option()
    @click.option("--show", "show_window", is_flag=True, help="Also print the rebuilt window.")
    @click.option(
        "--as-of-marker",
        "as_of_marker",
        is_flag=True,
        help="Read the rows as of the manifest's change marker (Oracle: its SCN, within undo "
        "retention), so later deletions do not stop the replay.",
    )
    @click.pass_context
    @friendly_errors
    def replay(ctx, manifest_id, tenant, show_window, as_of_marker) -> None:
        """Rebuild a window from the row versions its manifest names and compare its hash.

        MANIFEST_ID is a manifest id, or `latest` for the tenant's newest.

        Exits 1 when the rebuilt window differs or cannot be rebuilt (a dependency deleted,
        or no longer visible in the manifest's scope; with --as-of-marker, a marker the
        database can no longer read as of).

        \b
        Example:
          memgate manifest replay latest -t acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            manifest_id = _resolve(manager, tenant, manifest_id)
            r = manager.replay_context(
                operator_of(manager).context_owner(tenant, manifest_id), manifest_id, as_of_marker=as_of_marker
            )
        finally:
            manager.close()
        if r.text is None:
            reasons = [f"  {m.ref['table']} {m.ref['id']} v{m.ref['version']}: {m.reason}" for m in r.missing]
            raise click.ClickException(
                "\n".join([f"cannot replay {manifest_id}: {r.note or 'dependencies are gone'}", *reasons])
            )
        if show_window:
            click.echo(r.text)
        if not r.matches:
            raise click.ClickException(
                f"replayed {manifest_id}: hash differs (window {r.window_hash}, manifest {r.manifest['window_hash']})"
            )
        click.echo(f"replayed {manifest_id}: hash matches ({r.window_hash})")

    @cli.group("budget")
    def budget() -> None:
        """The tenant's context budget (the context_budget guideline)."""

    @budget.command("show")
    @tenant_option()
    @click.pass_context
    @friendly_errors
    def budget_show(ctx, tenant) -> None:
        """Print the context budget in force, as JSON.

        \b
        Example:
          memgate budget show -t acme
        """
        manager = open_manager(settings_from(ctx))
        try:
            b = manager.context_budget(operator_identity(tenant))
        finally:
            manager.close()
        click.echo(json.dumps(b.to_json(), indent=2, sort_keys=True))

    @budget.command("set")
    @click.argument("assignments", nargs=-1, required=True, metavar="KEY=VALUE...")
    @tenant_option()
    @click.pass_context
    @friendly_errors
    def budget_set(ctx, assignments, tenant) -> None:
        """Update the budget: the old version is retired and the next one inserted, validated first.

        VALUE is JSON (a bare word is a string); KEY may be dotted. A new intent is its four
        shares (durable_facts, evidence, recalled_history, volatile_tail; they sum to at most 1).

        \b
        Examples:
          memgate budget set -t acme usable_context=8000 max_rounds=4
          memgate budget set -t acme shares.fact_check.evidence=0.3 shares.fact_check.durable_facts=0.35
          memgate budget set -t acme 'shares.howto={"durable_facts": 0.2, "evidence": 0.5, "recalled_history": 0.1, "volatile_tail": 0.2}'
        """
        manager = open_manager(settings_from(ctx))
        identity = operator_identity(tenant)
        try:
            data = manager.context_budget(identity).to_json()
            for item in assignments:
                _assign(data, item)
            row = manager.set_context_budget(identity, data)
        finally:
            manager.close()
        click.echo(f"context budget of {tenant} is now version {row['version']} ({row['row_id']}, {row['id']})")


def _resolve(manager, tenant: str, manifest_id: str) -> str:
    from memgate.manager import NotFound

    if manifest_id != "latest":
        return manifest_id
    rows = operator_of(manager).context_manifests(tenant, 1)
    if not rows:
        raise NotFound(
            f"tenant {tenant} has no context manifest yet",
            hint=f"Assemble one with `memgate context 'What is the Helios nDCG@10?' -t {tenant} -i fact_check`.",
        )
    return rows[0]["id"]


def describe(m: dict[str, Any]) -> str:
    """A manifest for reading: scope, budget arithmetic, memories and exclusions."""
    a, req = m["arithmetic"], m["request"]
    ref = m["budget_ref"]
    scope = ", ".join(f"{k} {req[k]}" for k in ("user", "agent", "thread", "session") if req.get(k)) or "tenant-wide"
    lines = [
        f"manifest {m['manifest_id']}  evaluated at {m['evaluated_at']}  intent {m['intent']}",
        f"tenant {req['tenant']} ({scope})",
        f"question: {_one_line(req['question'])}",
        f"budget: {ref['type']} {ref['row_id']} v{ref['version']}" if ref else "budget: defaults (no guideline)",
        f"  {a['usable_context']} usable - {a['reserves']['output']} output - {a['reserves']['tool']} tools - "
        f"{a['reserves']['request_overhead']} overhead = {a['available']} available",
        "  fixed: " + ", ".join(f"{k} {v}" for k, v in a["fixed"].items()) + f"  -> remainder {a['remainder']}",
        "  slices (share, allowance, granted, used): "
        + "; ".join(
            f"{k} {a['shares'][k]:g} {a['allowances'][k]} {a['granted'][k]} {a['used'][k]}" for k in a["allowances"]
        ),
        f"  window: {m['window_tokens']} tokens (sha256 {m['window_hash'][:16]}...), request sha256 "
        f"{m['request_hash'][:16]}..., {len(m['change_marker']['versions'])} row versions read",
        f"memories ({len(m['memories'])}):",
    ]
    for e in m["memories"]:
        r = e["ref"]
        note = "".join(
            f"  (used {n['used']['id'] if n.get('used') else '?'}; current {n['current_fact_id'] or 'none'})"
            for n in e.get("annotations", ())
        )
        if e.get("link"):
            note += f"  ({e['link']['relation']} {e['link']['linked_to']})"
        lines.append(
            f"  {e['slice']:<16} {e['tier']:<7} {e['tokens']:>5}  {e['status']:<10} "
            f"{r['table']} {r['id']} v{r['version']}{note}"
        )
    lines.append(f"left out ({len(m['exclusions'])}):")
    for e in m["exclusions"]:
        r = e["ref"]
        lines.append(f"  {e['slice']:<16} {e['rule']:<9} {r['table']} {r['id']} v{r['version']}: {e['detail']}")
    return "\n".join(lines)


def _assign(data: dict[str, Any], item: str) -> None:
    from memgate.manager import InvalidArgument

    key, sep, raw = item.partition("=")
    if not sep or not key:
        raise InvalidArgument(
            f"expected KEY=VALUE, got {item!r}",
            field="assignments",
            hint="For example: memgate budget set -t acme usable_context=8000",
        )
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    *path, last = key.split(".")
    node = data
    for part in path:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise InvalidArgument(f"{key}: {part} is not an object", field=key)
    node[last] = value


def _one_line(text: str | None) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= 80 else text[:79] + "…"
