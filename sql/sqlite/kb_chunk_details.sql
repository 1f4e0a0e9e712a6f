-- What a search result shows for the chunks in :seqs (a JSON list of seq).
-- CROSS JOIN keeps the list as the outer loop, so each chunk is found by its key (the planner
-- would otherwise walk the tenant's index and test every row against the list).
SELECT c.seq, c.id, c.document_id, c.collection, c.position, c.content, c.token_count,
       c.source_table, c.source_id, c.source_version, c.valid_until,
       d.title, d.source_uri,
       (SELECT count(*) FROM knowledge_base_chunk n WHERE n.document_id = c.document_id) AS chunk_count
FROM json_each(:seqs) AS j
CROSS JOIN knowledge_base_chunk c
JOIN knowledge_base_document d ON d.id = c.document_id
WHERE c.seq = j.value
