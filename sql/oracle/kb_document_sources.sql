-- search: where the documents :ids (a JSON list) came from, for their citation links.
SELECT id, source_uri FROM knowledge_base_document
WHERE id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
