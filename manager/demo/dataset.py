"""The demo dataset: two tenants whose facts overlap, so isolation and corrections are visible.

acme (user jane, agent research-assistant) holds model:helios-rag beir_ndcg10
version 1 = 0.92 (superseded) and version 2 = 0.78 (current, corrected), plus
a July summary that used 0.92, two turns of jane's thread `helios-review`, and the
research assistant's memory-tool file /memories/progress.md (store
agent:research-assistant). Links: version 2 supersedes version 1 (the
correction's link); the August report's first passage supports version 2 and
contradicts the July summary. globex holds its own claim on the same subject. Each tenant
has a context budget (row id context_context_budget).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from ..backend.base import Session
from ..claims.entities import link_correction
from ..claims.guidelines import BUDGET_ROW_ID
from ..context.assemble import ContextWindow
from ..conversations import recall_index
from ..conversations.keys import open_conversation, take_turns
from ..conversations.messages import speaker_of
from ..conversations.recall_index import index_turns
from ..facade import MemoryManager
from ..identity import Identity
from ..kb import ingest as kb_ingest
from ..links import store as link_store
from ..tokens import count_tokens

ACME = Identity(tenant="acme", user="jane", agent="research-assistant", principal="memgate demo")
GLOBEX = Identity(tenant="globex", user="omar", agent="support-bot", principal="memgate demo")
DEMO_TENANTS = (ACME, GLOBEX)

JULY = "2026-07-14T09:00:00.000Z"
CORRECTED = "2026-08-15T16:30:00.000Z"
REVIEW = "2026-08-20T10:00:00.000Z"
#: jane's thread in which the demo conversation about the Helios numbers happens
ACME_THREAD = "helios-review"
#: the question of the demo's fact-check window
DEMO_QUESTION = "Is Helios RAG's nDCG@10 on BEIR really 0.92?"

ACME_BUDGET = {
    "usable_context": 5000,
    "output_reserve": 400,
    "tool_reserve": 1000,
    "request_overhead_reserve": 500,
    "max_rounds": 3,
    "max_tool_result_tokens": 1000,
    "weights": {"rerank": 0.60, "confidence": 0.25, "recency": 0.15},
    "recency_days": 60,
    "shares": {
        "comparison": {"durable_facts": 0.15, "evidence": 0.60, "recalled_history": 0.05, "volatile_tail": 0.20},
        "fact_check": {"durable_facts": 0.40, "evidence": 0.25, "recalled_history": 0.10, "volatile_tail": 0.25},
    },
    "overflow_order": ["evidence", "durable_facts", "volatile_tail", "recalled_history"],
}
GLOBEX_BUDGET = {
    "usable_context": 4000,
    "output_reserve": 500,
    "tool_reserve": 800,
    "request_overhead_reserve": 400,
    "max_rounds": 4,
    "max_tool_result_tokens": 800,
    "weights": {"rerank": 0.70, "confidence": 0.20, "recency": 0.10},
    "recency_days": 90,
    "shares": {
        "support": {"durable_facts": 0.30, "evidence": 0.40, "recalled_history": 0.05, "volatile_tail": 0.25},
        "fact_check": {"durable_facts": 0.45, "evidence": 0.30, "recalled_history": 0.05, "volatile_tail": 0.20},
    },
    "overflow_order": ["durable_facts", "evidence", "volatile_tail", "recalled_history"],
}

_DOCS = {
    "acme": [
        (
            "Helios RAG evaluation report (August re-run)",
            "The August re-run of the Helios RAG evaluation on BEIR found nDCG@10 of 0.78. "
            "The July figure of 0.92 was computed against qrels that leaked test queries into "
            "the tuning set; it is withdrawn.\n\nRecall@100 stayed at 0.91. The retriever is a "
            "hybrid of BM25 and dense vectors fused by reciprocal rank fusion.",
        ),
        (
            "Acme research group: how we report metrics",
            "Always cite the current version of a metric from the fact store. Summaries are "
            "snapshots and may quote superseded numbers; check the claim before repeating one.",
        ),
    ],
    "globex": [
        (
            "Globex support handbook",
            "Globex evaluates Helios RAG on its own support tickets, not on BEIR. Escalate "
            "billing questions to the finance queue within one business day.",
        ),
    ],
}

#: memory-tool files the demo agent left for itself: (store key, path, text)
_MEMORY_FILES = {
    "acme": [
        (
            "agent:research-assistant",
            "/memories/progress.md",
            "# Helios RAG evaluation: progress\n"
            "\n"
            "- [x] July run on BEIR: nDCG@10 0.92 (withdrawn: the qrels leaked test queries)\n"
            "- [x] August re-run on clean qrels: nDCG@10 0.78, recall@100 0.91\n"
            "- [ ] Ask jane whether the July summary should be reissued with 0.78\n"
            "\n"
            "Always look up model:helios-rag beir_ndcg10 before quoting it; summaries can be stale.\n",
        ),
    ],
}


def seed_demo(manager: MemoryManager) -> list[str]:
    """Insert the demo rows for tenants that do not have them yet; returns the tenants seeded."""
    seeded = []
    for identity in DEMO_TENANTS:
        # acme's seed writes a turn of jane's thread too: bind it (rows with no thread stay shared)
        bound = replace(identity, thread=ACME_THREAD) if identity is ACME else identity
        with manager.backend.session(bound) as s:
            if s.fetch_one("guideline_current", key="context_budget", now=CORRECTED):
                continue
            with s.transaction():
                (_seed_acme if identity is ACME else _seed_globex)(s, identity)
                _seed_documents(s, identity)
                if identity is ACME:
                    _seed_acme_links(s, identity)
                kb_ingest.embed_missing(s, manager.embedder)  # demo chunks searchable by vector too
                recall_index.embed_missing(s, manager.embedder)  # and the demo's turns
        for store, path, text in _MEMORY_FILES.get(identity.tenant, ()):
            with manager.memory_store_files(identity, store) as files:
                files.put(path, text)
        seeded.append(identity.tenant)
    return seeded


def tenants_not_the_demos(manager: MemoryManager) -> list[str]:
    """The database's tenants the demo would mix with: any but acme and globex, and acme or globex
    without the demo's rows (a real tenant of that name). Empty: the demo may be loaded."""
    from ..operator import OperatorManager

    names = {identity.tenant: identity for identity in DEMO_TENANTS}
    found = []
    for tenant in OperatorManager(manager.backend).tenants():
        identity = names.get(tenant)
        if identity is None:
            found.append(tenant)
            continue
        with manager.backend.session(identity) as s:
            if not s.fetch_one("guideline_current", key="context_budget", now=CORRECTED):
                found.append(f"{tenant} (without the demo's rows)")
    return found


def record_demo_window(manager: MemoryManager) -> ContextWindow:
    """Assemble the demo's fact-check window for jane in her review thread (its manifest is recorded)."""
    return manager.assemble_context(replace(ACME, thread=ACME_THREAD), DEMO_QUESTION, "fact_check")


def _claim(
    s: Session,
    identity: Identity,
    id: str,
    subject: str,
    predicate: str,
    content: str,
    version: int,
    valid_from: str,
    valid_until: str | None = None,
    conditions: dict | None = None,
    replaces: str | None = None,
) -> None:
    s.insert(
        "entity_memory",
        {
            "id": id,
            "tenant_id": identity.tenant,
            "subject": subject,
            "predicate": predicate,
            "content": content,
            "content_json": json.dumps(conditions, sort_keys=True) if conditions else None,
            "confidence": 0.9,
            "version": version,
            "valid_from": valid_from,
            "valid_until": valid_until,
            "source_table": "entity_memory" if replaces else None,
            "source_id": replaces,
            "source_version": version - 1 if replaces else None,
            "created_by": identity.principal,
            "created_at": valid_from,
        },
    )


def _guideline(
    s: Session, identity: Identity, id: str, key: str, content: str, data: dict | None = None, row_id: str | None = None
) -> None:
    s.insert(
        "guideline_memory",
        {
            "id": id,
            "row_id": row_id or id,
            "tenant_id": identity.tenant,
            "guideline_key": key,
            "content": content,
            "content_json": json.dumps(data, sort_keys=True) if data else None,
            "version": 1,
            "valid_from": JULY,
            "created_by": identity.principal,
            "created_at": JULY,
        },
    )


def _seed_acme(s: Session, identity: Identity) -> None:
    cond = {"dataset": "BEIR", "metric": "nDCG@10"}
    _claim(
        s,
        identity,
        "ent_acme_helios_v1",
        "model:helios-rag",
        "beir_ndcg10",
        "0.92",
        1,
        JULY,
        valid_until=CORRECTED,
        conditions=cond,
    )
    _claim(
        s,
        identity,
        "ent_acme_helios_v2",
        "model:helios-rag",
        "beir_ndcg10",
        "0.78",
        2,
        CORRECTED,
        conditions={**cond, "note": "corrected: July qrels leaked test queries"},
        replaces="ent_acme_helios_v1",
    )
    _claim(s, identity, "ent_acme_helios_owner", "model:helios-rag", "owner", "jane", 1, JULY)
    _guideline(
        s,
        identity,
        "gdl_acme_budget",
        "context_budget",
        "Plan a 5,000-token window: keep 400 tokens for the answer, 1,000 for at most 3 tool rounds "
        "of up to 1,000 tokens each, and 500 for request overhead.",
        ACME_BUDGET,
        row_id=BUDGET_ROW_ID,
    )
    _guideline(
        s,
        identity,
        "gdl_acme_citations",
        "citations",
        "Cite memory record ids for every figure you repeat. Prefer current claims over summaries.",
    )
    s.insert(
        "persona_memory",
        {
            "id": "per_acme_research",
            "tenant_id": identity.tenant,
            "agent_id": identity.agent,
            "persona_key": "default",
            "name": "Acme research assistant",
            "content": "A careful research assistant for Acme's ML group. Precise with numbers, "
            "says which version of a metric it quotes, and asks when a request is ambiguous.",
            "version": 1,
            "valid_from": JULY,
            "created_by": identity.principal,
            "created_at": JULY,
        },
    )
    s.insert(
        "summarization_memory",
        {
            "id": "sum_acme_july",
            "tenant_id": identity.tenant,
            "user_id": identity.user,
            "title": "July evaluation summary",
            "content": "In July, Helios RAG reached nDCG@10 of 0.92 on BEIR, ahead of the baseline.",
            "period_start": "2026-07-01T00:00:00.000Z",
            "period_end": "2026-07-31T23:59:59.000Z",
            "source_versions_json": json.dumps([{"table": "entity_memory", "id": "ent_acme_helios_v1", "version": 1}]),
            "version": 1,
            "valid_from": "2026-08-01T00:00:00.000Z",
            "created_by": identity.principal,
            "created_at": "2026-08-01T00:00:00.000Z",
        },
    )
    s.insert(
        "workflow_memory",
        {
            "id": "wfl_acme_eval",
            "tenant_id": identity.tenant,
            "workflow_key": "eval-runbook",
            "title": "Re-run a retrieval evaluation",
            "content": "Freeze the qrels, run lexical, vector and hybrid, record each metric as a claim.",
            "steps_json": json.dumps(["freeze qrels", "run three retrievers", "record claims", "summarise"]),
            "version": 1,
            "valid_from": JULY,
            "created_by": identity.principal,
            "created_at": JULY,
        },
    )
    # jane's conversation in her review thread: its turns carry the
    # conversation, not the thread, like every turn
    conversation = open_conversation(s, replace(identity, thread=ACME_THREAD), REVIEW)
    first = take_turns(s, conversation["id"], 2)
    for turn, (role, text) in enumerate(
        (
            ("user", "Before the review: what nDCG@10 did Helios RAG reach on BEIR?"),
            ("assistant", "I will check the current claim and the evaluation reports before quoting a number."),
        ),
        start=first,
    ):
        s.insert(
            "conversation_memory",
            {
                "id": f"cnv_acme_review_{turn}",
                "tenant_id": identity.tenant,
                "user_id": identity.user,
                "agent_id": identity.agent,
                "conversation_id": conversation["id"],
                "speaker": speaker_of(identity, role),
                "event_type": "turn",
                "role": role,
                "content": text,
                "turn_index": turn,
                "token_count": count_tokens(text),
                "version": 1,
                "valid_from": REVIEW,
                "created_by": identity.principal,
                "created_at": REVIEW,
            },
        )
    # recall text now, embeddings by seed_demo's embed pass
    ids = json.dumps([f"cnv_acme_review_{n}" for n in (first, first + 1)])
    index_turns(s, None, s.fetch_all("context_rows_conversation_memory", ids=ids), REVIEW)


def _seed_acme_links(s: Session, identity: Identity) -> None:
    """The correction's link, and two explicit ones from the August report's first passage."""
    versions = {r["id"]: r for r in s.fetch_all("entity_versions", subject="model:helios-rag", predicate="beir_ndcg10")}
    link_correction(s, identity, versions["ent_acme_helios_v2"], versions["ent_acme_helios_v1"], CORRECTED)
    for relation, target in (("supports", "ent_acme_helios_v2"), ("contradicts", "sum_acme_july")):
        link_store.link_between(s, identity, "chk_acme_1_0", relation, target, now=REVIEW)


def _seed_globex(s: Session, identity: Identity) -> None:
    _claim(
        s,
        identity,
        "ent_globex_helios_v1",
        "model:helios-rag",
        "beir_ndcg10",
        "0.55",
        1,
        JULY,
        conditions={"dataset": "globex-tickets", "metric": "nDCG@10"},
    )
    _claim(s, identity, "ent_globex_acct", "customer:initech", "account_manager", "omar", 1, JULY)
    _guideline(
        s,
        identity,
        "gdl_globex_budget",
        "context_budget",
        "Short answers: a 4,000-token window, at most 4 tool rounds of up to 800 tokens each.",
        GLOBEX_BUDGET,
        row_id=BUDGET_ROW_ID,
    )
    s.insert(
        "persona_memory",
        {
            "id": "per_globex_support",
            "tenant_id": identity.tenant,
            "persona_key": "default",
            "name": "Globex support bot",
            "content": "Friendly, brief, escalates billing questions.",
            "version": 1,
            "valid_from": JULY,
            "created_by": identity.principal,
            "created_at": JULY,
        },
    )


def _seed_documents(s: Session, identity: Identity) -> None:
    for n, (title, text) in enumerate(_DOCS[identity.tenant], start=1):
        doc_id = f"doc_{identity.tenant}_{n}"
        s.insert(
            "knowledge_base_document",
            {
                "id": doc_id,
                "tenant_id": identity.tenant,
                "collection": "demo",
                "title": title,
                "source_uri": f"demo://{identity.tenant}/{n}",
                "mime_type": "text/plain",
                "content_hash": hashlib.sha256(text.encode()).hexdigest(),
                "token_count": count_tokens(text),
                "content": text,
                "version": 1,
                "valid_from": JULY,
                "created_by": identity.principal,
                "created_at": JULY,
            },
        )
        for pos, para in enumerate(p for p in text.split("\n\n") if p.strip()):
            s.insert(
                "knowledge_base_chunk",
                {
                    "id": f"chk_{identity.tenant}_{n}_{pos}",
                    "tenant_id": identity.tenant,
                    "document_id": doc_id,
                    "collection": "demo",
                    "position": pos,
                    "content": para,
                    "token_count": count_tokens(para),
                    "version": 1,
                    "valid_from": JULY,
                    "created_by": identity.principal,
                    "created_at": JULY,
                },
            )
