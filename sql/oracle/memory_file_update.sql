-- Rewrite a memory file if it is still at the version the caller read (compare-and-set).
UPDATE memory_file
SET content = :content, size_chars = :size_chars, size_bytes = :size_bytes,
    version = version + 1, updated_by = :updated_by, updated_at = :now
WHERE id = :id AND version = :version
