-- Every file of one store (`memgate memory clear`).
DELETE FROM memory_file WHERE store_id = :store_id
