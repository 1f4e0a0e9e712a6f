-- The one statement that reads an image's bytes: by id, current at :now, through the wall.
-- The caller has checked the size (image_meta) first, so an image over the cap is never read.
SELECT id, mime_type, width, height, byte_size, sha256, bytes
FROM image_memory
WHERE id = :id
  AND deleted_at IS NULL AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now)
