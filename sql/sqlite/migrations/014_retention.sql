-- Retention and erasure (manager/retention/): the erasure record, the ids it erased, and the one
-- update the call log allows.
--
-- base_erasure_log: one row per `memgate forget` (who asked, when, the subject, counts per table;
-- no content). status is 'running' until every table is done, so a run that was killed is found
-- and finished by the next run for the same subject. base_erasure_row: the keys each erasure
-- removed (random ids, no content), written in the same transaction as the delete, so a resumed
-- run still finds the rows that referenced them (links, manifests) and replay can tell "a source
-- was erased" from "deleted". Both are operator tables (schema.py OPERATOR_TABLES): no tenant view,
-- so no walled connection and no execute_query reaches them.
CREATE TABLE base_erasure_log (
    erasure_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    subject_kind TEXT NOT NULL CHECK (subject_kind IN ('user', 'agent', 'thread')),
    subject TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'done')),
    counts_json TEXT NOT NULL DEFAULT '{}',
    started_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE INDEX erasure_log_subject_ix ON base_erasure_log (tenant_id, subject_kind, subject, status);

CREATE TABLE base_erasure_row (
    erasure_id TEXT NOT NULL REFERENCES base_erasure_log (erasure_id),
    tenant_id TEXT NOT NULL,
    table_name TEXT NOT NULL,
    row_key TEXT NOT NULL,
    PRIMARY KEY (erasure_id, table_name, row_key)
);
CREATE INDEX erasure_row_key_ix ON base_erasure_row (tenant_id, row_key);

-- The call log stays append-only but for erasure: an update may only replace the content columns
-- (arguments, their digest, the result text) with the erasure marker and must keep every other
-- column, so the row still shows who called which tool when, and that its content was erased.
DROP TRIGGER IF EXISTS base_mcp_call_log_append_only;
CREATE TRIGGER base_mcp_call_log_append_only BEFORE UPDATE ON base_mcp_call_log
WHEN NOT (NEW.arguments_json IS '"[erased]"' AND NEW.result_text IS '[erased]' AND NEW.argument_digest IS NULL
      AND NEW.call_id IS OLD.call_id AND NEW.tenant_id IS OLD.tenant_id AND NEW.called_at IS OLD.called_at
      AND NEW.principal IS OLD.principal AND NEW.user_id IS OLD.user_id AND NEW.agent_id IS OLD.agent_id
      AND NEW.thread_id IS OLD.thread_id AND NEW.tool_name IS OLD.tool_name AND NEW.handler IS OLD.handler
      AND NEW.status IS OLD.status AND NEW.session_id IS OLD.session_id AND NEW.transport IS OLD.transport
      AND NEW.toolbox_row_id IS OLD.toolbox_row_id AND NEW.toolbox_row_version IS OLD.toolbox_row_version
      AND NEW.created_at IS OLD.created_at)
BEGIN
    SELECT RAISE(ABORT, 'memgate: mcp_call_log is append-only');
END;
