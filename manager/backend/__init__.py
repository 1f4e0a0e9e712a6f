"""The storage seam: the Backend/Session contract (base.py), the factory, and one folder per dialect.

Owns: connections, the tenant wall as each database enforces it, dialect SQL (loaded from
sql/<dialect>/), the grammar execute_query parses, and how vectors are stored and compared.
May import: the shared leaves (errors, identity). Nothing above it: the manager's
capability folders call the protocol, never a dialect module.
"""

from .base import Backend, ChunkFilters, QueryDialect, QueryRows, Row, Session, ViewCatalog
from .factory import open_backend
from .settings import DatabaseSettings, default_database_path

__all__ = [
    "Backend",
    "ChunkFilters",
    "DatabaseSettings",
    "QueryDialect",
    "QueryRows",
    "Row",
    "Session",
    "ViewCatalog",
    "default_database_path",
    "open_backend",
]
