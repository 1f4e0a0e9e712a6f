-- Operator only: the server secret :name (registry/server_keys.py). Runs as the schema owner;
-- server_secret is an operator table no other account has a grant on (install/045).
SELECT secret FROM server_secret WHERE name = :name
