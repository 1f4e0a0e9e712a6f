import hashlib
import os
import subprocess
import sys

import pytest

from memgate.manager.errors import ConfigError
from memgate.manager.tokens import count_tokens, seed_tiktoken_cache, tiktoken_cache_path

O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
CACHE_KEY = hashlib.sha1(
    b"https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
).hexdigest()


def offline_env(cache_dir) -> dict:
    """The current environment with a fresh tiktoken cache and every proxy pointing nowhere."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATA_GYM_CACHE_DIR", "NO_PROXY", "no_proxy")}
    dead = "http://127.0.0.1:9"  # the discard port: a download attempt fails at once
    env.update(TIKTOKEN_CACHE_DIR=str(cache_dir), HTTPS_PROXY=dead, HTTP_PROXY=dead,
               https_proxy=dead, http_proxy=dead)
    return env


def test_count_tokens_counts_hello_world_as_two_tokens():
    assert count_tokens("hello world") == 2


def test_count_tokens_of_empty_text_is_zero():
    assert count_tokens("") == 0


def test_count_tokens_treats_special_token_text_as_plain_text():
    assert count_tokens("<|endoftext|>") > 1


def test_count_tokens_works_offline_from_an_empty_cache_dir(tmp_path):
    code = "from memgate.manager.tokens import count_tokens; print(count_tokens('hello world'))"
    done = subprocess.run([sys.executable, "-c", code], env=offline_env(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "2\n"), done.stderr
    seeded = tmp_path / CACHE_KEY
    assert hashlib.sha256(seeded.read_bytes()).hexdigest() == O200K_SHA256
    assert sorted(p.name for p in tmp_path.iterdir()) == [CACHE_KEY]


def test_cache_path_follows_tiktoken_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    assert tiktoken_cache_path() == tmp_path / CACHE_KEY


def test_cache_path_falls_back_to_data_gym_cache_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(tmp_path))
    assert tiktoken_cache_path() == tmp_path / CACHE_KEY


def test_seeding_replaces_a_corrupt_cached_file(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    (tmp_path / CACHE_KEY).write_bytes(b"not a vocabulary")
    seed_tiktoken_cache()
    assert hashlib.sha256((tmp_path / CACHE_KEY).read_bytes()).hexdigest() == O200K_SHA256


def test_seeding_refuses_when_tiktoken_caching_is_disabled(monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    with pytest.raises(ConfigError, match="^TIKTOKEN_CACHE_DIR is empty") as caught:
        seed_tiktoken_cache()
    assert caught.value.with_hint() == (
        "TIKTOKEN_CACHE_DIR is empty, which disables tiktoken's cache, so token counting would "
        "need the network. Unset TIKTOKEN_CACHE_DIR or point it at a writable directory."
    )
