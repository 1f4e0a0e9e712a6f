-- Views and triggers of the schema: the sources the walled authorizer lets reach base_ tables.
-- dbtools_mcp_log (migration 008) is an operator view over base_mcp_call_log across tenants: not one.
SELECT name FROM sqlite_master WHERE type IN ('view', 'trigger') AND name <> 'dbtools_mcp_log'
