"""Memory that moves: export a scope to a bundle, import a bundle (operator only).

bundle.py (the folder: manifest, JSONL per table, image files, what is shared), scopes.py (which
rows a scope owns and the identity that reads each through the wall), export.py (`memgate export`),
importer.py (`memgate import`), log.py (the record of each, beside the erasure records);
sources.py and propose.py (`memgate import --from`: other tools' files, each memory a proposal
to the promotion gate through MemoryManager.remember_imported).
The table list is the retention registry's (manager/retention/registry.py): a table that holds
memory moves once it has an entry there. Operator-only: the CLI calls these with the backend; no
tool and no MemoryManager method reaches them. May import: backend, retention.registry, clock,
errors, identity, ids.
"""

from .bundle import FORMAT, VERSION, BundleReader
from .export import ExportReport, export_scope
from .importer import ImportReport, import_bundle
from .log import records as portability_records
from .propose import ProposalReport, propose_file
from .scopes import KINDS as SCOPE_KINDS
from .sources import FORMATS as IMPORT_FORMATS

#: what `memgate import --from` takes: a memgate bundle, or another tool's memories
IMPORT_SOURCES = ("bundle", *IMPORT_FORMATS)

__all__ = [
    "FORMAT",
    "IMPORT_FORMATS",
    "IMPORT_SOURCES",
    "SCOPE_KINDS",
    "VERSION",
    "BundleReader",
    "ExportReport",
    "ImportReport",
    "ProposalReport",
    "export_scope",
    "import_bundle",
    "portability_records",
    "propose_file",
]
