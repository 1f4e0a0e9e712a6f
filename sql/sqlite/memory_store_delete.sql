DELETE FROM memory_store WHERE id = :store_id
