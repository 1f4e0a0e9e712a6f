UPDATE guideline_memory SET valid_until = :now WHERE id = :id AND valid_until IS NULL
