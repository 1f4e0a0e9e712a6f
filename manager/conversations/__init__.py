"""Conversations: what was said, by whom and when, kept per caller and recalled across sessions.

Owns: which conversation a caller is in and its turn numbers (keys.py), conversation events
(events.py) and turns of text or ordered text and image parts (messages.py), the turns every
path records (turns.py: the context_window prompt's question, the record_turn handler, the
operator's `turn ls`), and compaction of raw turns into summaries that keep identifiers
verbatim (compaction.py, verbatim.py). context/ assembles windows from it.
May import: the shared leaves, backend.base, claims, kb, output.
"""
