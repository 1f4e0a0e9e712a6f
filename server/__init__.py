"""The MCP server: FastMCP app, identity and auth, transports, resources, CLI."""
