"""`memgate serve --transport http --workers N`: N uvicorn worker processes sharing nothing but the database.

uvicorn starts each worker as a fresh process and builds the app there from an import string, so
the parent hands over what it was asked (the config file and the command line's overrides) in one
environment variable, and each worker loads the same settings, opens its own pool and builds its
own server. A legacy-era session lives in one process's memory and the kernel spreads new
connections over the workers, so several workers serve statelessly (server.stateless).
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger("memgate.server")

#: not MEMGATE_-prefixed, so the settings' environment source never reads it as a setting
SPEC_ENV = "_MEMGATE_HTTP_WORKER"
FACTORY = "memgate.server.http_workers:create_app"


def worker_spec(config: str | Path | None, overrides: dict[str, Any]) -> str:
    """What every worker needs to load the parent's settings: the config file and the flags' overrides."""
    return json.dumps({"config": str(config) if config else None, "overrides": overrides})


def http_app(manager, settings):
    """The ASGI app `memgate serve --transport http` runs, in its one process or in each worker; it
    warns first about what the operator should fix (no tenant set up, rows citing memgate links)."""
    from .app import http_asgi_app, http_server
    from .cli.citation_links import rows_citing_memgate_links, warning_for
    from .cli.common import operator_of
    from .dev_issuer import with_dev_issuer

    settings = with_dev_issuer(settings)  # `memgate dev-token`'s issuer, on a local server with no [http.auth]
    mcp = http_server(manager, settings)
    if not operator_of(manager).tenants():
        log.warning(
            "no tenant is set up in %s, so every caller sees no tools; run `memgate init --tenant T` for each tenant",
            settings.database.path,
        )
    if warning := warning_for(rows_citing_memgate_links(operator_of(manager))):
        log.warning(warning)
    return http_asgi_app(mcp, settings)


def create_app():
    """uvicorn's app factory in each worker process."""
    from memgate.manager import prepare_server_heap

    from .cli.common import open_manager, setup_logging
    from .settings import load_settings

    spec = json.loads(os.environ[SPEC_ENV])
    settings = load_settings(spec["config"], **spec["overrides"])
    setup_logging(settings.server.log_level)
    manager = open_manager(settings)
    manager.check_schema()
    prepare_server_heap()  # as `memgate serve` does in one process (manager/tokens.py)
    log.info("memgate worker %d serving %s", os.getpid(), settings.database.path)
    return http_app(manager, settings)
