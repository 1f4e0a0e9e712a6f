-- What a search result shows for the chunks in :seqs (a JSON list of seq).
-- JSON_TABLE stands in for SQLite's json_each ("the first argument of json_table ... can be a
-- bind variable", JSON Developer's Guide, SQL/JSON Function JSON_TABLE). content is a CLOB: the
-- backend fetches it as text (fetch_lobs=False).
SELECT c.seq, c.id, c.document_id, c.collection, c.position, c.content, c.token_count,
       d.title, d.source_uri,
       (SELECT COUNT(*) FROM knowledge_base_chunk n WHERE n.document_id = c.document_id) AS chunk_count
FROM knowledge_base_chunk c
JOIN knowledge_base_document d ON d.id = c.document_id
WHERE c.seq IN (SELECT j.seq FROM JSON_TABLE(:seqs, '$[*]' COLUMNS (seq NUMBER PATH '$')) j)
