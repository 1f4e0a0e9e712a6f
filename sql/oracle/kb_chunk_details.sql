-- The chunks (by seq, a JSON array) a search returned, with their document's title and size.
SELECT c.seq, c.id, c.document_id, c.collection, c.position, c.content, c.token_count,
       c.source_table, c.source_id, c.source_version, c.valid_until,
       d.title, d.source_uri,
       (SELECT COUNT(*) FROM knowledge_base_chunk n WHERE n.document_id = c.document_id) AS chunk_count
FROM knowledge_base_chunk c
JOIN knowledge_base_document d ON d.id = c.document_id
WHERE c.seq IN (SELECT j.seq FROM JSON_TABLE(:seqs, '$[*]' COLUMNS (seq NUMBER PATH '$')) j)
