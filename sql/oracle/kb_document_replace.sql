-- A changed file updates its document in place: the next version, current from :now.
UPDATE knowledge_base_document
SET title = :title, mime_type = :mime_type, content_hash = :content_hash,
    token_count = :token_count, content = :content, metadata_json = :metadata_json,
    version = version + 1, valid_from = :now, valid_until = NULL, deleted_at = NULL
WHERE id = :id
