-- Close a toolbox row's version (disable, or before the next version is inserted).
UPDATE toolbox_memory SET valid_until = :now WHERE id = :id
