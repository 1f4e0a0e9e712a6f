-- The bound tenant's knowledge-base change counters (migration 011): `generation` moves on every
-- chunk write, `rewrites` on every write that is not an append. A vector cache built at other
-- numbers is stale; one built at the same `rewrites` only lacks the chunks appended since.
-- No row yet: the tenant has never written a chunk.
SELECT coalesce(max(generation), 0) AS generation, coalesce(max(rewrites), 0) AS rewrites
FROM kb_generation
