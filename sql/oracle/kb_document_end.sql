-- Promotion gate: a remembered note to be reassessed ends now (it stays, as history).
UPDATE knowledge_base_document SET valid_until = :now WHERE id = :id AND valid_until IS NULL
