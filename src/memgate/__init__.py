"""memgate: an MCP server in front of a multi-tenant Memory Manager."""

__version__ = "0.1.0"
