-- Whether a result the caller received cited :id (the promotion gate's evidence rule; expand of an
-- image id). mcp_call_cited holds each id an ok call's result cited, with the call's scope: VPD
-- cuts it to the caller's user, agent and thread as it cuts mcp_call_log, so another caller's
-- results issued nothing to this one. One range of mcp_call_cited_ix (tenant, cited id).
SELECT call_id FROM mcp_call_cited
WHERE cited_id = :id
FETCH FIRST 1 ROW ONLY
