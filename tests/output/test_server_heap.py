"""The server process's heap: malloc arenas limited before its threads start, free pages given back.

Deterministic checks only (no RSS figures: bench/rss.py measures those); each runs in a
subprocess, since limiting arenas changes the process it runs in."""

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc is Linux's")

PROBE = textwrap.dedent("""
    import json, os
    from memgate.manager import heap, prepare_server_heap, tokens
    assert tokens._encoding is None
    prepare_server_heap()
    print(json.dumps({
        "built": tokens._encoding is not None and tokens._encoding._mergeable_ranks == {},
        "limited": heap.limit_arenas(),
        "released": heap.release_free_heap(),
    }))
""")


def _probe(**env) -> str:
    environment = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"} | env
    done = subprocess.run([sys.executable, "-c", PROBE], env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_server_process_builds_o200k_first_and_limits_its_arenas():
    assert _probe() == '{"built": true, "limited": true, "released": true}'


def test_an_operators_malloc_arena_max_wins():
    assert _probe(MALLOC_ARENA_MAX="4") == '{"built": true, "limited": false, "released": true}'
