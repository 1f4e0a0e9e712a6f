"""The Memory Manager: the single entry point to memory, and the one import path other layers use.

`server/` and `toolbox/` import from here only (`from memgate.manager import ...`), never
from a submodule; `__all__` is that contract. Inside, each folder is a capability with
its own docstring saying what it owns and what it may import:

    claims/    versioned facts, guidelines, persona, scoping, stale facts
    context/   context windows: budget, selection, tiers, manifest, replay, tool rounds
    conversations/ conversations: keys, turns, recall, import, compaction
    files/     the memory tool: commands, texts, paths, stores
    kb/        parse, chunk, embed, ingest, search, fusion
    links/     typed links between memories; bounded traversal for retrieval
    query/     execute_query, without dialect
    output/    records, cells, tables, budgets, results
    registry/  toolbox rows, the call log, default tools
    tenancy/   tenant mapping for tokens that name no tenant
    retention/ retention and erasure for the operator: `memgate expire`, `memgate forget`
    portability/ export and import of a scope's memory for the operator: `memgate export|import`
    consolidation/ near duplicates, stale records, notes repeating passages: `memgate consolidate`
    demo/      the demo dataset
    backend/   the storage seam and one folder per dialect

The shared leaves (errors, identity, limits, clock, ids, tokens) sit beside facade/,
the MemoryManager class every method call goes through.
"""

from .backend import Backend, DatabaseSettings, default_database_path, open_backend
from .clock import days_ago_iso, now_iso
from .consolidation import MERGE_DECISIONS, ConsolidationReport, consolidate, decide_merge, merges
from .context.assemble import ContextWindow
from .context.replay import Replay
from .context.rerank import Reranker
from .conversations.importing import TurnImportReport
from .conversations.messages import ImagePart, TextPart, Turn
from .conversations.policy import POLICIES as RECALL_POLICIES
from .conversations.policy import RecallPolicy
from .conversations.ranking import HybridRanker, Ranked, Ranker, RecallCandidate, TurnRanker
from .conversations.turns import operator_turns
from .demo import ACME, DEMO_QUESTION, DEMO_TENANTS, GLOBEX, record_demo_window, seed_demo, tenants_not_the_demos
from .errors import (
    AccessDenied,
    BackendUnavailable,
    ConfigError,
    Conflict,
    ContextTooSmall,
    DatabaseBusy,
    ImageNotShown,
    ImageNotVisible,
    InvalidArgument,
    MemgateError,
    NoCaller,
    NotFound,
    NotIssued,
    NotVisible,
    QueryRejected,
    QueryTimeout,
    RowGone,
    RowRefused,
    SchemaMismatch,
    TenantMismatch,
    TenantUnmapped,
)
from .facade import MemoryManager
from .files.commands import COMMANDS as MEMORY_COMMANDS
from .files.stores import validate_store_policy
from .files.texts import MEMORY_PROTOCOL
from .identity import ID_RULE, UNMAPPED_TENANT, Identity, check_id
from .kb.embed import Embedder, HashingEmbedder, default_embedder, embedder_named
from .kb.image_header import IMAGE_EXTENSIONS, is_image_path
from .kb.images import NOT_SEARCHABLE, sidecar_paths
from .kb.ingest import FAILED, NEW, REPLACED, UNCHANGED, IngestResult
from .kb.links import is_web_url
from .kb.parse import SUPPORTED_EXTENSIONS
from .limits import (
    DEFAULT_INTENT,
    ROWS_CEILING,
    CapsSettings,
    ChunkSettings,
    ContextBudget,
    ContextSettings,
    KbSettings,
    MemoryFileSettings,
)
from .links.kinds import RELATIONS, REVERSE
from .operator import OperatorManager, ServerGate
from .output.echo import clip_echo
from .output.results import ImageData, ToolOutput
from .portability import (
    IMPORT_FORMATS,
    IMPORT_SOURCES,
    BundleReader,
    ExportReport,
    ImportReport,
    ProposalReport,
    export_scope,
    import_bundle,
    portability_records,
    propose_file,
)
from .promotion import review as promotion_review
from .promotion.memory_view import CandidateNotVisible, operator_memory_view
from .promotion.policy import PromotionPolicy
from .promotion.review import OwnCandidate
from .registry.calllog import STATUSES as CALL_STATUSES
from .registry.calllog import CallRecord
from .registry.defaults import load_tool_definitions
from .registry.toolbox import ToolRow
from .retention import erase, erasures, expire, load_policy, set_retention
from .tenancy.mapping import KINDS as TENANT_MAPPING_KINDS
from .tenancy.mapping import TenantChoice, TenantMapping, TokenAttributes
from .tokens import count_tokens, prepare_server_heap

#: every relation a link may be named by, forwards and backwards
LINK_RELATIONS = (*RELATIONS, *REVERSE.values())

__all__ = [
    "ACME",
    "CALL_STATUSES",
    "DEFAULT_INTENT",
    "DEMO_QUESTION",
    "DEMO_TENANTS",
    "FAILED",
    "GLOBEX",
    "ID_RULE",
    "IMAGE_EXTENSIONS",
    "IMPORT_FORMATS",
    "IMPORT_SOURCES",
    "LINK_RELATIONS",
    "MEMORY_COMMANDS",
    "MEMORY_PROTOCOL",
    "MERGE_DECISIONS",
    "NEW",
    "NOT_SEARCHABLE",
    "RECALL_POLICIES",
    "REPLACED",
    "ROWS_CEILING",
    "SUPPORTED_EXTENSIONS",
    "TENANT_MAPPING_KINDS",
    "UNCHANGED",
    "UNMAPPED_TENANT",
    "AccessDenied",
    "Backend",
    "BackendUnavailable",
    "BundleReader",
    "CallRecord",
    "CandidateNotVisible",
    "CapsSettings",
    "ChunkSettings",
    "ConfigError",
    "Conflict",
    "ConsolidationReport",
    "ContextBudget",
    "ContextSettings",
    "ContextTooSmall",
    "ContextWindow",
    "DatabaseBusy",
    "DatabaseSettings",
    "Embedder",
    "ExportReport",
    "HashingEmbedder",
    "HybridRanker",
    "Identity",
    "ImageData",
    "ImageNotShown",
    "ImageNotVisible",
    "ImagePart",
    "ImportReport",
    "IngestResult",
    "InvalidArgument",
    "KbSettings",
    "MemgateError",
    "MemoryFileSettings",
    "MemoryManager",
    "NoCaller",
    "NotFound",
    "NotIssued",
    "NotVisible",
    "OperatorManager",
    "OwnCandidate",
    "PromotionPolicy",
    "ProposalReport",
    "QueryRejected",
    "QueryTimeout",
    "Ranked",
    "Ranker",
    "RecallCandidate",
    "RecallPolicy",
    "Replay",
    "Reranker",
    "RowGone",
    "RowRefused",
    "SchemaMismatch",
    "ServerGate",
    "TenantChoice",
    "TenantMapping",
    "TenantMismatch",
    "TenantUnmapped",
    "TextPart",
    "TokenAttributes",
    "ToolOutput",
    "ToolRow",
    "Turn",
    "TurnImportReport",
    "TurnRanker",
    "check_id",
    "clip_echo",
    "consolidate",
    "count_tokens",
    "days_ago_iso",
    "decide_merge",
    "default_database_path",
    "default_embedder",
    "embedder_named",
    "erase",
    "erasures",
    "expire",
    "export_scope",
    "import_bundle",
    "is_image_path",
    "is_web_url",
    "load_policy",
    "load_tool_definitions",
    "merges",
    "now_iso",
    "open_backend",
    "operator_memory_view",
    "operator_turns",
    "portability_records",
    "prepare_server_heap",
    "promotion_review",
    "propose_file",
    "record_demo_window",
    "seed_demo",
    "set_retention",
    "sidecar_paths",
    "tenants_not_the_demos",
    "validate_store_policy",
]
