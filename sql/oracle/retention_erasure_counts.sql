-- Erasure: the rows erased so far per table (:counts, a JSON object), in each batch's transaction.
UPDATE erasure_log SET counts_json = :counts WHERE erasure_id = :erasure
