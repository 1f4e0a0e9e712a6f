-- An image whose new bytes came without a description: its old description's document is no
-- longer searchable (its chunks are deleted beside this).
UPDATE knowledge_base_document SET deleted_at = :now WHERE id = :id
