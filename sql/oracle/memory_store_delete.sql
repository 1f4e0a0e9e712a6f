-- Delete one memory store (its files first: memory_file_delete_all).
DELETE FROM memory_store WHERE id = :store_id
