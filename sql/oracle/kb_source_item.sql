-- fetch: the knowledge-base chunk or document whose id is :id, if it is current at :now and the
-- caller may see it. VPD decides what the caller sees, so a row behind it and a row that does
-- not exist read the same: no row. A chunk is current only while its document is.
-- A document's text is its stored full text, or (a row stored without it) its chunks in order
-- joined by a blank line. SQLite's group_concat has no Oracle twin for CLOBs (LISTAGG takes
-- VARCHAR2 only), so the block joins them first, then returns the row as an implicit result
-- (DBMS_SQL.RETURN_RESULT); v_chunks stays NULL unless the document lacks its text.
DECLARE
  found SYS_REFCURSOR;
  v_chunks CLOB;
BEGIN
  FOR k IN (SELECT ch.content FROM knowledge_base_chunk ch
             WHERE ch.document_id = :id AND ch.deleted_at IS NULL
               AND EXISTS (SELECT 1 FROM knowledge_base_document x WHERE x.id = :id AND x.content IS NULL)
             ORDER BY ch.position) LOOP
    v_chunks := CASE WHEN v_chunks IS NULL THEN k.content ELSE v_chunks || CHR(10) || CHR(10) || k.content END;
  END LOOP;
  OPEN found FOR
    SELECT CAST('kb_chunk' AS VARCHAR2(16)) AS kind, c.id, c.document_id, c.collection, c.position, c.content, c.token_count,
           c.valid_from, c.source_table, c.source_id, c.source_version, d.title, d.source_uri,
           (SELECT COUNT(*) FROM knowledge_base_chunk n WHERE n.document_id = c.document_id) AS chunk_count
    FROM knowledge_base_chunk c
    JOIN knowledge_base_document d ON d.id = c.document_id
    WHERE c.id = :id
      AND c.deleted_at IS NULL AND c.valid_from <= :now AND (c.valid_until IS NULL OR c.valid_until > :now)
      AND d.deleted_at IS NULL AND d.valid_from <= :now AND (d.valid_until IS NULL OR d.valid_until > :now)
    UNION ALL
    SELECT 'kb_document', d.id, d.id, d.collection, NULL, COALESCE(d.content, v_chunks),
           d.token_count, d.valid_from, d.source_table, d.source_id, d.source_version, d.title, d.source_uri,
           (SELECT COUNT(*) FROM knowledge_base_chunk n WHERE n.document_id = d.id)
    FROM knowledge_base_document d
    WHERE d.id = :id
      AND d.deleted_at IS NULL AND d.valid_from <= :now AND (d.valid_until IS NULL OR d.valid_until > :now);
  DBMS_SQL.RETURN_RESULT(found);
END;
