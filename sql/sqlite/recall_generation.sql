-- The bound tenant's recall change counters (migration 017): `generation` moves on every recall row
-- write, `rewrites` on every write that is not an append. No row yet: nothing recalled yet.
SELECT coalesce(max(generation), 0) AS generation, coalesce(max(rewrites), 0) AS rewrites
FROM recall_generation
