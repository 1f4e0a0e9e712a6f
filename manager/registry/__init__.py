"""The registry: toolbox rows, the MCP call log, and the default tool definitions.

Owns: which toolbox rows are active for a caller and enabling/disabling them by version
(toolbox.py), the append-only mcp_call_log (calllog.py), config/toolbox.json (defaults.py).
May import: the shared leaves, backend.base, claims.scoping.
"""
