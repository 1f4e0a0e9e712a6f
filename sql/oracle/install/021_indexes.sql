-- 021_indexes.sql: the unique and lookup indexes of sql/sqlite/migrations/001_initial.sql.
-- Run by: MEMGATE_OWNER. Re-runnable: an index that exists is skipped, by error number
-- (ORA-00955 name already used, ORA-01408 such column list already indexed).
--
-- SQLite needs ifnull(user_id, '') in its unique indexes because it treats NULLs as distinct.
-- Oracle does not need it: a composite unique index treats rows with the same non-null values and
-- NULLs in the same other key columns as duplicates (rows whose key is NULL in every column are
-- not indexed; tenant_id and version are NOT NULL, so that never happens here). Not found in the
-- Oracle docs corpus in those words; stated by several third-party references (e.g. Devart's
-- "two rows that contain Nulls for one or more key columns and the same combination of values for
-- the other key columns violate the constraint"). A CI test on a real database must pin it.
-- (Oracle also stores '' as NULL, so ifnull(x, '') would not work here anyway.)
DECLARE
  PROCEDURE ensure(p_ddl VARCHAR2) IS
  BEGIN
    EXECUTE IMMEDIATE p_ddl;
  EXCEPTION
    WHEN OTHERS THEN
      IF SQLCODE NOT IN (-955, -1408) THEN RAISE; END IF;
  END;
BEGIN
  -- one row per version of a key in a scope: two concurrent corrections cannot both commit
  ensure('CREATE UNIQUE INDEX guideline_version_uq ON guideline_memory
            (tenant_id, guideline_key, user_id, agent_id, thread_id, version)');
  ensure('CREATE UNIQUE INDEX persona_version_uq ON persona_memory
            (tenant_id, persona_key, user_id, agent_id, thread_id, version)');
  ensure('CREATE UNIQUE INDEX toolbox_version_uq ON toolbox_memory
            (tenant_id, tool_name, user_id, agent_id, thread_id, version)');
  -- its leading columns also serve SQLite's entity_lookup_ix (tenant_id, subject, predicate)
  ensure('CREATE UNIQUE INDEX entity_version_uq ON entity_memory
            (tenant_id, subject, predicate, user_id, agent_id, thread_id, version)');
  ensure('CREATE UNIQUE INDEX workflow_version_uq ON workflow_memory
            (tenant_id, workflow_key, user_id, agent_id, thread_id, version)');
  -- one document per source in a collection and scope (issue 6). SQLite lets any number of
  -- documents without a source_uri coexist (NULLs are distinct there); the CASE keeps that: a
  -- document without a source is keyed by its own id.
  ensure('CREATE UNIQUE INDEX kb_document_source_uq ON knowledge_base_document
            (tenant_id, collection, CASE WHEN source_uri IS NULL THEN ''id:'' || id ELSE source_uri END,
             user_id, agent_id, thread_id)');
  ensure('CREATE INDEX kb_chunk_doc_ix ON knowledge_base_chunk (tenant_id, document_id, position)');
  ensure('CREATE INDEX kb_chunk_collection_ix ON knowledge_base_chunk (tenant_id, collection)');
  ensure('CREATE INDEX conversation_thread_ix ON conversation_memory (tenant_id, thread_id, created_at)');
  ensure('CREATE UNIQUE INDEX memory_store_uq ON memory_store (tenant_id, store_key)');
  -- one path per store; a rename is an update of path
  ensure('CREATE UNIQUE INDEX memory_file_path_uq ON memory_file (tenant_id, store_id, path)');
  ensure('CREATE INDEX mcp_call_log_time_ix ON mcp_call_log (tenant_id, called_at)');
  ensure('CREATE INDEX memory_link_from_ix ON memory_link (tenant_id, from_type, from_id)');
  ensure('CREATE INDEX memory_link_to_ix ON memory_link (tenant_id, to_type, to_id)');
  ensure('CREATE INDEX memory_image_doc_ix ON memory_image (tenant_id, document_id)');
  ensure('CREATE INDEX memory_image_sha_ix ON memory_image (tenant_id, sha256)');
END;
/
