-- Which ids an ok tool result cited, one row per id, by key (manager/registry/calllog.py).
--
-- "Was record X issued to this caller?" (the promotion gate's evidence rule, expand of an image
-- id: calllog_cited.sql) was instr(cited_ids, :needle) over every ok row of mcp_call_log the wall
-- let the caller see, so its cost grew with the call log. base_mcp_call_cited holds each cited id
-- of an ok call beside the call's tenant, user, agent and thread (so the wall cuts it exactly as it
-- cuts mcp_call_log), written in the call-log row's transaction; the lookup is one range of
-- mcp_call_cited_ix.
--
-- It is an index of mcp_call_log.cited_ids and follows its row: append-only like it (`memgate
-- forget` scrubs a call's content, not its cited ids, and leaves these rows too: ids, no content),
-- deleted with it (the trigger below, so `memgate expire`'s call-log rule takes them; on Oracle the
-- registry's orphan rule does), exported and imported with it. id is the call's id and the cited
-- id's place in cited_ids ("call_...:0"), so the backfill below and Oracle's (install/032) agree.
-- Oracle: install/032_call_cited.sql.
CREATE TABLE base_mcp_call_cited (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    user_id TEXT, agent_id TEXT, thread_id TEXT,
    call_id TEXT NOT NULL,
    cited_id TEXT NOT NULL
);
CREATE INDEX mcp_call_cited_ix ON base_mcp_call_cited (tenant_id, cited_id);
CREATE INDEX mcp_call_cited_call_ix ON base_mcp_call_cited (tenant_id, call_id);

INSERT INTO base_mcp_call_cited (id, tenant_id, user_id, agent_id, thread_id, call_id, cited_id)
SELECT l.call_id || ':' || j.key, l.tenant_id, l.user_id, l.agent_id, l.thread_id, l.call_id, j.value
FROM base_mcp_call_log l, json_each(CASE WHEN json_valid(l.cited_ids) THEN l.cited_ids ELSE '[]' END) j
WHERE l.status = 'ok' AND j.type = 'text';

CREATE TRIGGER base_mcp_call_cited_append_only BEFORE UPDATE ON base_mcp_call_cited
BEGIN
    SELECT RAISE(ABORT, 'memgate: mcp_call_cited is append-only');
END;

-- A call's cited ids go with its row.
CREATE TRIGGER base_mcp_call_log__cited_delete AFTER DELETE ON base_mcp_call_log
BEGIN
    DELETE FROM base_mcp_call_cited WHERE tenant_id = OLD.tenant_id AND call_id = OLD.call_id;
END;
