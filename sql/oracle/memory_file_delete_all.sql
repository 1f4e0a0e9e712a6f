-- Every file of a store (before the store itself is deleted).
DELETE FROM memory_file WHERE store_id = :store_id
