"""Conversations: what was said, by whom and when, kept per caller and recalled across sessions.

Owns: which conversation a caller is in and its turn counter (keys.py), conversation events
(events.py) and turns of text or ordered text and image parts (messages.py), the turns every
path records (turns.py: the context_window prompt's question, the record_turn handler, the
operator's `turn ls`), when a turn was said (dates.py), the recall index every turn and summary
is written to (recall_index.py), the tenant's recall policy (policy.py), the scoped candidate
fetch (recall.py), the ranker seam (ranking.py) and the ranking it runs (recall_rank.py),
imports of conversation histories (importing.py), and compaction of raw turns into summaries that keep identifiers verbatim
(compaction.py, verbatim.py). context/ assembles windows from it.
May import: the shared leaves, backend.base, claims, kb, output.
"""
