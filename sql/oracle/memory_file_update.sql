-- Compare-and-set: writes only if the file is still at the version the writer read.
UPDATE memory_file
SET content = :content, size_chars = :size_chars, size_bytes = :size_bytes,
    version = version + 1, updated_by = :updated_by, updated_at = :now
WHERE id = :id AND version = :version
