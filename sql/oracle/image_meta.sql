-- One image the caller may see, current at :now, by id: everything but its bytes. VPD decides
-- what the caller sees, so a row behind it and a row that does not exist read the same.
SELECT id, document_id, collection, title, description, mime_type, width, height, byte_size, sha256,
       version, valid_from
FROM image_memory
WHERE id = :id
  AND deleted_at IS NULL AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now)
