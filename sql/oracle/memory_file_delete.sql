-- Delete a memory file if it is still at the version the caller read (compare-and-set).
DELETE FROM memory_file WHERE id = :id AND version = :version
