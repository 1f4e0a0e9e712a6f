-- Compare-and-set, as memory_file_update: a rename is a new version of the file.
UPDATE memory_file
SET path = :new_path, version = version + 1, updated_by = :updated_by, updated_at = :now
WHERE id = :id AND version = :version
