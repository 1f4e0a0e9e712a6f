-- The scope wall: inside a tenant, user, agent and thread scope are the database's job too.
--
-- The generated views and guard triggers (tenant_guard.sql) now filter and guard scope;
-- they are rebuilt after this migration like after every other. What they cannot reach
-- is the lexical index: base_kb_chunk_fts carries tenant_id only, so kb_chunk_match
-- also keeps only the FTS rows whose chunk is in the caller's scope (the same predicate
-- as the generated knowledge_base_chunk view). MATCH and bm25() still push down into the
-- view, and the chunk is found by its INTEGER PRIMARY KEY, so ranking still only ever
-- sees rows the caller may see.

DROP VIEW kb_chunk_match;

CREATE VIEW kb_chunk_match AS
SELECT rowid AS seq, base_kb_chunk_fts AS fts, bm25(base_kb_chunk_fts) AS bm25
FROM base_kb_chunk_fts
WHERE tenant_id = app_tenant()
  AND EXISTS (SELECT 1 FROM base_knowledge_base_chunk c
              WHERE c.seq = base_kb_chunk_fts.rowid AND c.tenant_id = app_tenant()
                AND (c.user_id IS NULL OR c.user_id = app_user())
                AND (c.agent_id IS NULL OR c.agent_id = app_agent())
                AND (c.thread_id IS NULL OR c.thread_id = app_thread()));
