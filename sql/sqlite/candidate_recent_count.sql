-- Promotion gate: how many proposals this caller made since :since (the rate cap per hour).
SELECT COUNT(*) AS n
FROM memory_candidate
WHERE created_by = :created_by AND created_at >= :since
