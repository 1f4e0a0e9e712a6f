-- Promotion gate: the chunks of a remembered note to be reassessed end with it (kept as history).
UPDATE knowledge_base_chunk SET valid_until = :now WHERE document_id = :document_id AND valid_until IS NULL
