UPDATE toolbox_memory SET valid_until = :now WHERE id = :id
