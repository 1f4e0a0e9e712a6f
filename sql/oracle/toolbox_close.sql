-- Disable a toolbox row version: close it at :now.
UPDATE toolbox_memory SET valid_until = :now WHERE id = :id
