"""Conversations: the turns a user and agent exchanged, kept per conversation and recalled across them.

Owns: ranking recalled turns from the lexical and vector candidates the fetch hands it (recall_rank.py).
May import: the shared leaves, backend.query_terms.
"""
