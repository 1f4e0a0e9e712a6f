"""Typed, directed links between memories, and the bounded traversal retrieval uses.

A link is a memory_link row under the same wall as every other table. Writing one reads
both ends through the caller's walled session first; reading one reads its far end
through the wall again, so a link never shows a row its reader could not read directly.
May import: backend, output, claims (labels), errors, identity, ids, tokens.
"""
