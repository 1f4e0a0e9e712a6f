-- Links: remove a live link (the row stays, with deleted_at).
UPDATE memory_link SET deleted_at = :now WHERE id = :id AND deleted_at IS NULL
