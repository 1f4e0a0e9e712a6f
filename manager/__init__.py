"""The Memory Manager: the single entry point to memory, and its error tree."""

from .caps import CapsSettings
from .calllog import CallRecord
from .errors import (
    AccessDenied,
    BackendUnavailable,
    ConfigError,
    Conflict,
    InvalidArgument,
    MemgateError,
    NotFound,
    QueryRejected,
    QueryTimeout,
    SchemaMismatch,
)
from .identity import Identity
from .memory_caps import MemoryFileSettings
from .memory_manager import MemoryManager
from .results import ToolOutput

__all__ = [
    "AccessDenied", "BackendUnavailable", "CallRecord", "CapsSettings", "ConfigError", "Conflict",
    "Identity", "InvalidArgument", "MemgateError", "MemoryFileSettings", "MemoryManager", "NotFound", "QueryRejected",
    "QueryTimeout", "SchemaMismatch", "ToolOutput",
]
