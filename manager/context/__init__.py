"""Context assembly: the budgeted window a model starts from, its manifest, replay, and what follows it.

Owns: the window's layout and slices (layout.py), the budget arithmetic (budget.py),
gathering candidates from every memory type (candidates.py), the pluggable rerank step
(rerank.py), selection with a recorded rule for every exclusion (selection.py), fitting
memories at full size, summary or pointer (tiers.py), rendering (render.py), the
manifest event and request hash (manifest.py), the whole assembly at one evaluation
time (assemble.py), rebuilding a window from its manifest (replay.py), the caller's
current window (window.py), tool rounds charged to the tool reserve (rounds.py),
expanding an issued pointer or a shown image (expand.py) and clarify answers as thread events
(clarify.py). Conversations (turns, recall, compaction) are manager/conversations/'s.
May import: the shared leaves, backend.base, claims, conversations, kb, links, output, registry.
"""
