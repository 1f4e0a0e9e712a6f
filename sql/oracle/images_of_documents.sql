-- search_memory: the images whose descriptions are the documents :ids (a JSON list), current at
-- :now, without their bytes; a hit on such a document is shown as the image.
SELECT id, document_id, collection, title, description, mime_type, width, height, byte_size
FROM image_memory
WHERE document_id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
  AND deleted_at IS NULL AND valid_from <= :now AND (valid_until IS NULL OR valid_until > :now)
