-- A memory store, once its files are gone.
DELETE FROM memory_store WHERE id = :store_id
