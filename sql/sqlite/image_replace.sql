-- A changed image file (its bytes or its description) updates its row in place: the next version.
UPDATE image_memory
SET title = :title, document_id = :document_id, description = :description, mime_type = :mime_type,
    width = :width, height = :height, byte_size = :byte_size, sha256 = :sha256, bytes = :bytes,
    version = version + 1, valid_from = :now, valid_until = NULL, deleted_at = NULL
WHERE id = :id
