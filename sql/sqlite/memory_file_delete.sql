DELETE FROM memory_file WHERE id = :id AND version = :version
