-- 021_indexes.sql: the unique and lookup indexes of the SQLite migrations.
-- Run by: MEMGATE_OWNER. Re-runnable: an index that exists is skipped, by error number
-- (ORA-00955 name already used, ORA-01408 such column list already indexed).
--
-- SQLite needs ifnull(user_id, '') in its unique indexes because it treats NULLs as distinct.
-- Oracle does not: a composite unique index treats two rows with the same non-null values and
-- NULLs in the same other key columns as duplicates (rows whose key is NULL in every column are
-- not indexed; tenant_id and version are NOT NULL, so only conversation_turn_uq uses that). NOT VERIFIED in
-- Oracle's own words in the docs corpus (stated by third-party references); the Oracle half of
-- tests/backend/contract/ pins it (two concurrent corrections of one claim version cannot both commit).
DECLARE
  PROCEDURE ensure(p_ddl VARCHAR2) IS
  BEGIN
    EXECUTE IMMEDIATE p_ddl;
  EXCEPTION
    WHEN OTHERS THEN
      IF SQLCODE NOT IN (-955, -1408) THEN
        RAISE;
      END IF;
  END ensure;
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
  -- one document per source in a collection and scope. SQLite lets any number of documents
  -- without a source_uri coexist (NULLs are distinct there); the CASE keeps that: a document
  -- without a source is keyed by its own id.
  ensure('CREATE UNIQUE INDEX kb_document_source_uq ON knowledge_base_document
            (tenant_id, collection, CASE WHEN source_uri IS NULL THEN ''id:'' || id ELSE source_uri END,
             user_id, agent_id, thread_id)');
  ensure('CREATE INDEX kb_chunk_doc_ix ON knowledge_base_chunk (tenant_id, document_id, position)');
  ensure('CREATE INDEX kb_chunk_collection_ix ON knowledge_base_chunk (tenant_id, collection)');
  ensure('CREATE INDEX conversation_thread_ix ON conversation_memory (tenant_id, thread_id, created_at)');
  -- schema version 2 (SQLite migration 004). (tenant, row id, version) names one guideline version:
  -- a budget_ref is exact, and two concurrent policy updates of one version cannot both commit.
  -- 020 gives every version-1 row its row id before this index is made.
  ensure('CREATE UNIQUE INDEX guideline_row_version_uq ON guideline_memory (tenant_id, row_id, version)');
  ensure('CREATE INDEX conversation_window_ix ON conversation_memory (tenant_id, window_id, event_type)');
  ensure('CREATE INDEX conversation_event_ix ON conversation_memory (tenant_id, event_type, thread_id, created_at)');
  -- turn numbers are unique per conversation: 026 makes that index (conversation_turn_no_uq) once
  -- the conversation table and conversation_memory.conversation_id exist
  ensure('CREATE UNIQUE INDEX memory_store_uq ON memory_store (tenant_id, store_key)');
  -- one path per store; a rename is an update of path
  ensure('CREATE UNIQUE INDEX memory_file_path_uq ON memory_file (tenant_id, store_id, path)');
  ensure('CREATE INDEX mcp_call_log_time_ix ON mcp_call_log (tenant_id, called_at)');
  -- links (SQLite migration 009): found from either end; one live link of a type between two ends.
  -- SQLite's unique index is partial (WHERE deleted_at IS NULL); here every key column is NULL for a
  -- removed link, and a row whose key columns are all NULL is not indexed.
  ensure('CREATE INDEX memory_link_from_ix ON memory_link (tenant_id, from_id, from_type)');
  ensure('CREATE INDEX memory_link_to_ix ON memory_link (tenant_id, to_id, to_type)');
  ensure('CREATE UNIQUE INDEX memory_link_live_uq ON memory_link
            (CASE WHEN deleted_at IS NULL THEN tenant_id END, CASE WHEN deleted_at IS NULL THEN from_type END,
             CASE WHEN deleted_at IS NULL THEN from_id END, CASE WHEN deleted_at IS NULL THEN link_type END,
             CASE WHEN deleted_at IS NULL THEN to_type END, CASE WHEN deleted_at IS NULL THEN to_id END)');
  -- one image per source in a collection and scope (SQLite migration 010); source_uri is NOT NULL
  ensure('CREATE UNIQUE INDEX image_source_uq ON image_memory
            (tenant_id, collection, source_uri, user_id, agent_id, thread_id)');
  ensure('CREATE INDEX image_document_ix ON image_memory (tenant_id, document_id)');
  -- SQLite's primary key (kind, issuer, value); issuer is NULL for every kind but iss_sub
  ensure('CREATE UNIQUE INDEX tenant_mapping_uq ON tenant_mapping (kind, issuer, value)');
END;
/
