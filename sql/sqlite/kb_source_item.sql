-- fetch: the knowledge-base chunk or document whose id is :id, if it is current at :now and the
-- caller may see it. The wall decides what the caller sees, so a row behind it and a row that
-- does not exist read the same: no row. A chunk is current only while its document is.
SELECT 'kb_chunk' AS kind, c.id, c.document_id, c.collection, c.position, c.content, c.token_count,
       c.valid_from, c.source_table, c.source_id, c.source_version, d.title, d.source_uri,
       (SELECT count(*) FROM knowledge_base_chunk n WHERE n.document_id = c.document_id) AS chunk_count
FROM knowledge_base_chunk AS c
JOIN knowledge_base_document AS d ON d.id = c.document_id
WHERE c.id = :id
  AND c.deleted_at IS NULL AND c.valid_from <= :now AND (c.valid_until IS NULL OR c.valid_until > :now)
  AND d.deleted_at IS NULL AND d.valid_from <= :now AND (d.valid_until IS NULL OR d.valid_until > :now)
UNION ALL
-- A document's content is its stored full text, NULL for a row stored without it: the manager then
-- joins its chunks (kb_document_chunk_texts.sql), on both backends alike.
SELECT 'kb_document', d.id, d.id, d.collection, NULL, d.content,
       d.token_count, d.valid_from, d.source_table, d.source_id, d.source_version, d.title, d.source_uri,
       (SELECT count(*) FROM knowledge_base_chunk n WHERE n.document_id = d.id)
FROM knowledge_base_document AS d
WHERE d.id = :id
  AND d.deleted_at IS NULL AND d.valid_from <= :now AND (d.valid_until IS NULL OR d.valid_until > :now)
