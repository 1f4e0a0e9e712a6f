-- Context assembly and replay: chunks by id (:ids, a JSON list), with their document's title.
SELECT c.seq, c.id, c.document_id, c.collection, c.position, c.content, c.token_count, c.version,
       c.valid_from, c.valid_until, c.deleted_at, c.source_table, c.source_id, c.source_version,
       d.title
FROM knowledge_base_chunk c
JOIN knowledge_base_document d ON d.id = c.document_id
WHERE c.id IN (SELECT j.id FROM JSON_TABLE(:ids, '$[*]' COLUMNS (id VARCHAR2(64) PATH '$')) j)
