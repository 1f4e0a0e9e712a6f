#!/bin/sh
# The image's entrypoint. It reads a memgate.toml mounted at /config/memgate.toml (unless
# MEMGATE_CONFIG names another file), creates or upgrades the schema and sets up the
# tenants MEMGATE_TENANTS names (comma-separated, e.g. acme,globex), then replaces itself
# with the command (default: the HTTP server), which so runs as PID 1 and gets docker
# stop's SIGTERM. memgate init reports on stderr: stdout may be a stdio server's protocol.
set -eu
set -f  # tenant names are split on commas below, never globbed

if [ -z "${MEMGATE_CONFIG:-}" ] && [ -f /config/memgate.toml ]; then
    export MEMGATE_CONFIG=/config/memgate.toml
fi

tenants=""
for tenant in $(printf '%s' "${MEMGATE_TENANTS:-}" | tr ',' ' '); do
    tenants="$tenants --tenant $tenant"
done
# shellcheck disable=SC2086 # one word per --tenant and name
memgate init $tenants >&2

exec "$@"
