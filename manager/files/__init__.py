"""Files: the `memory` tool (Anthropic's memory_20250818 contract) over database-backed stores.

Owns: the six commands and the operator's admin commands (commands.py), the contract's
exact texts (texts.py), path canonicalisation (paths.py), which store a call works on
(stores.py).
May import: the shared leaves, backend.base, output.
"""
