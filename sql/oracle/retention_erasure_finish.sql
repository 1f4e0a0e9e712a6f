-- Erasure: every table is done.
UPDATE erasure_log SET status = 'done', finished_at = :now WHERE erasure_id = :erasure
