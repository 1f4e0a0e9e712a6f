"""Claims: versioned facts (entity_memory), guidelines and persona, and choosing among scopes.

Owns: lookup of a claim's current version with labeled history, corrections (close the
old version, insert the next, in one transaction), current guidelines and personas, the
most-specific-scope rule.
May import: the shared leaves, backend.base, output.
"""
