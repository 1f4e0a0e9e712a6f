-- Rename a memory file if it is still at the version the caller read (compare-and-set).
UPDATE memory_file
SET path = :new_path, version = version + 1, updated_by = :updated_by, updated_at = :now
WHERE id = :id AND version = :version
