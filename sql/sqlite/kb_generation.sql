-- The bound tenant's knowledge-base change counter: every chunk write bumps it in the same
-- transaction (migration 011), so an in-process vector cache built at another number is stale.
-- No row yet: the tenant has never written a chunk.
SELECT coalesce((SELECT generation FROM kb_generation), 0) AS generation
