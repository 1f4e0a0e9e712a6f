"""The SQLite vector cache: the exact leg's answers, fresh across processes, and walled by scope."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from backend_helpers import open_sqlite
from kb_helpers import ACME, GLOBEX, add_doc, hashing_manager

from memgate.manager.backend.base import ChunkFilters
from memgate.manager.backend.sql_files import load_sql
from memgate.manager.backend.sqlite import vector_cache, vector_matrix
from memgate.manager.identity import Identity

MODEL, DIMS = "random-16", 16
NOW = "2026-07-01T00:00:00.000Z"
JANE = Identity(tenant="acme", user="jane", principal="test:jane")
BOB = Identity(tenant="acme", user="bob", principal="test:bob")


def _unit(rng, n):
    rows = rng.standard_normal((n, DIMS)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _add_chunks(
    backend,
    identity,
    vectors,
    *,
    user=None,
    document="doc_a",
    collection="default",
    valid_from="2026-01-01T00:00:00.000Z",
    valid_until=None,
    start=0,
):
    with backend.session(identity) as s, s.transaction():
        for i, vector in enumerate(vectors, start):
            s.insert(
                "knowledge_base_chunk",
                {
                    "id": f"chk_{identity.tenant}_{user}_{document}_{i}",
                    "tenant_id": identity.tenant,
                    "user_id": user,
                    "document_id": document,
                    "collection": collection,
                    "position": i,
                    "content": f"chunk {i}",
                    "embedding": np.asarray(vector, dtype=np.float32),
                    "embedding_model": MODEL,
                    "valid_from": valid_from,
                    "valid_until": valid_until,
                },
            )


@pytest.fixture
def corpus(backend):
    """A few hundred chunks of one tenant in several documents, collections, scopes and lifetimes,
    with exact duplicates (ties) among them."""
    rng = np.random.default_rng(5)
    vectors = _unit(rng, 300)
    vectors[10:14] = vectors[3]  # four ties with chunk 3
    _add_chunks(backend, JANE, vectors[:120])
    _add_chunks(backend, JANE, vectors[120:180], document="doc_b", collection="manuals", start=120)
    _add_chunks(backend, JANE, vectors[180:220], user="jane", start=180)
    _add_chunks(backend, JANE, vectors[220:250], valid_until="2026-03-01T00:00:00.000Z", start=220)
    _add_chunks(backend, JANE, vectors[250:300], valid_from="2026-09-01T00:00:00.000Z", start=250)
    return vectors


FILTERS = [
    ChunkFilters(now=NOW),
    ChunkFilters(now=NOW, collection="manuals"),
    ChunkFilters(now=NOW, document_id="doc_b"),
    ChunkFilters(now=NOW, collection="nowhere"),
    ChunkFilters(now="2026-02-01T00:00:00.000Z"),
    ChunkFilters(now="2026-10-01T00:00:00.000Z"),
    ChunkFilters(now=NOW, include_ended=True),
]


@pytest.mark.parametrize("filters", FILTERS)
def test_the_cache_returns_what_the_exact_leg_returns(backend, corpus, filters):
    rng = np.random.default_rng(11)
    queries = list(_unit(rng, 25)) + [corpus[3], corpus[200], -corpus[7]]
    for identity in (JANE, BOB):
        for query in queries:
            for limit in (1, 5, 50):
                with backend.session(identity) as s:
                    cached = s.kb_vector(query, MODEL, limit, filters)
                    exact = s.kb_vector_exact(query, MODEL, limit, filters)
                assert cached == exact
    assert backend.vector_cache.nbytes > 0  # the searches above went through the cache


def test_ties_are_ordered_by_seq_as_in_the_exact_leg(backend, corpus):
    with backend.session(JANE) as s:
        hits = s.kb_vector(corpus[3], MODEL, 5, ChunkFilters(now=NOW))
    assert [c for _, c in hits] == [hits[0][1]] * 5
    assert [seq for seq, _ in hits] == sorted(seq for seq, _ in hits)


def test_a_second_search_reuses_the_matrix_an_append_grows_it_and_a_rewrite_replaces_it(backend, corpus):
    key = vector_cache.ScopeKey("acme", "jane", None, None, MODEL, DIMS)
    filters = ChunkFilters(now=NOW)
    with backend.session(JANE) as s:
        s.kb_vector(corpus[0], MODEL, 5, filters)
        first = backend.vector_cache._entries[key]
        s.kb_vector(corpus[1], MODEL, 5, filters)
        assert backend.vector_cache._entries[key] is first
    _add_chunks(
        backend,
        JANE,
        [-corpus[0], -corpus[1]],
        start=900,
        collection="appended",
        valid_until="2026-08-01T00:00:00.000Z",
    )
    with backend.session(JANE) as s:
        grown = s.kb_vector(-corpus[0], MODEL, 5, filters)
        assert grown == s.kb_vector_exact(-corpus[0], MODEL, 5, filters)
        assert s.kb_vector(-corpus[0], MODEL, 5, ChunkFilters(now=NOW, collection="appended")) == s.kb_vector_exact(
            -corpus[0], MODEL, 5, ChunkFilters(now=NOW, collection="appended")
        )
        assert s.kb_vector(-corpus[0], MODEL, 5, ChunkFilters(now="2026-09-01T00:00:00.000Z")) == s.kb_vector_exact(
            -corpus[0], MODEL, 5, ChunkFilters(now="2026-09-01T00:00:00.000Z")
        )
    second = backend.vector_cache._entries[key]
    assert second is not first and second.rewrites == first.rewrites  # grown, not rebuilt
    assert len(second.seqs) == len(first.seqs) + 2 and np.array_equal(
        np.concatenate(second.blocks)[: len(first.seqs)], np.concatenate(first.blocks)
    )
    with backend.session(JANE) as s:
        s.raw("DELETE FROM knowledge_base_chunk WHERE collection = 'appended'")
        assert s.kb_vector(-corpus[0], MODEL, 5, filters) == s.kb_vector_exact(-corpus[0], MODEL, 5, filters)
    third = backend.vector_cache._entries[key]
    assert third.rewrites == first.rewrites + 2 and len(third.seqs) == len(first.seqs)  # a bump per row deleted


def test_an_insert_below_the_highest_seq_is_not_taken_for_an_append(backend, corpus):
    with backend.session(JANE) as s:
        s.kb_vector(corpus[0], MODEL, 5, ChunkFilters(now=NOW))
        seq = s.raw("SELECT min(seq) AS seq FROM knowledge_base_chunk")[0]["seq"]
        s.raw("DELETE FROM knowledge_base_chunk WHERE seq = :seq", {"seq": seq})
        s.kb_vector(corpus[0], MODEL, 5, ChunkFilters(now=NOW))  # rebuilt without it
        s.insert(
            "knowledge_base_chunk",
            {
                "seq": seq,
                "id": "chk_back",
                "tenant_id": "acme",
                "document_id": "doc_a",
                "position": 0,
                "content": "back",
                "embedding": -corpus[5],
                "embedding_model": MODEL,
                "valid_from": "2026-01-01T00:00:00.000Z",
            },
        )
        cached = s.kb_vector(-corpus[5], MODEL, 3, ChunkFilters(now=NOW))
        assert cached[0][0] == seq and cached == s.kb_vector_exact(-corpus[5], MODEL, 3, ChunkFilters(now=NOW))


def test_a_user_scoped_chunk_cached_for_jane_never_reaches_bob(backend, corpus):
    private = corpus[190]  # chunks 180-219 are jane's own
    with backend.session(JANE) as s:
        jane_hits = {seq for seq, _ in s.kb_vector(private, MODEL, 300, ChunkFilters(now=NOW))}
        jane_private = {r["seq"] for r in s.raw("SELECT seq FROM knowledge_base_chunk WHERE user_id = 'jane'")}
    with backend.session(BOB) as s:
        bob_hits = {seq for seq, _ in s.kb_vector(private, MODEL, 300, ChunkFilters(now=NOW))}
        bob_seqs = {r["seq"] for r in s.raw("SELECT seq FROM knowledge_base_chunk")}
    assert len(jane_private) == 40 and not jane_private & bob_seqs
    assert jane_hits & jane_private and not bob_hits & jane_private
    assert bob_hits == jane_hits - jane_private and bob_hits <= bob_seqs
    keys = {(k.tenant, k.user) for k in backend.vector_cache._entries}
    assert keys == {("acme", "jane"), ("acme", "bob")}


def test_another_tenant_never_shares_a_matrix(backend, corpus):
    globex = Identity(tenant="globex", user="jane")
    with backend.session(globex) as s:
        assert s.kb_vector(corpus[3], MODEL, 10, ChunkFilters(now=NOW)) == []


WRITER = textwrap.dedent("""
    import sys, numpy as np
    from memgate.manager import DatabaseSettings, open_backend
    from memgate.manager.identity import Identity
    backend = open_backend(DatabaseSettings(path=sys.argv[1]))
    who = Identity(tenant="acme", user="jane")
    with backend.session(who) as s, s.transaction():
        if sys.argv[2] == "insert":
            s.insert("knowledge_base_chunk", {
                "id": "chk_other_process", "tenant_id": "acme", "document_id": "doc_x", "position": 0,
                "content": "from another process", "embedding": np.array([float(v) for v in sys.argv[3:]], dtype=np.float32),
                "embedding_model": "random-16", "valid_from": "2026-01-01T00:00:00.000Z"})
        else:
            s.raw("DELETE FROM knowledge_base_chunk WHERE id = 'chk_other_process'")
    backend.close()
""")


def test_a_write_in_another_process_is_seen_on_the_next_search(backend, corpus, sqlite_path):
    target = -corpus[0]  # nothing in the corpus is close to it
    with backend.session(JANE) as s:
        before = s.kb_vector(target, MODEL, 3, ChunkFilters(now=NOW))
    subprocess.run(
        [sys.executable, "-c", WRITER, str(sqlite_path), "insert", *map(str, target.tolist())], check=True, timeout=60
    )
    with backend.session(JANE) as s:
        after = s.kb_vector(target, MODEL, 3, ChunkFilters(now=NOW))
        new_seq = s.raw("SELECT seq FROM knowledge_base_chunk WHERE id = 'chk_other_process'")[0]["seq"]
    assert after[0][0] == new_seq and after[0][1] == pytest.approx(1.0, abs=1e-6) and after[1:] == before[:2]
    subprocess.run([sys.executable, "-c", WRITER, str(sqlite_path), "delete"], check=True, timeout=60)
    with backend.session(JANE) as s:
        assert s.kb_vector(target, MODEL, 3, ChunkFilters(now=NOW)) == before


def test_searches_through_the_manager_agree_with_and_without_the_cache(backend, sqlite_path):
    kb = hashing_manager(backend)
    for i in range(12):
        add_doc(kb, ACME, f"t{i}", f"Kumquat orchard note {i}: " + "harvest pruning irrigation " * (i % 4 + 1))
    add_doc(kb, GLOBEX, "g", "kumquat harvest")
    cached = kb.search_chunks(ACME, "kumquat harvest irrigation", methods=("vector",), limit=8)
    uncached_backend = open_sqlite(sqlite_path)
    uncached_backend.vector_cache.max_bytes = 0  # nothing fits: every search reads every blob
    try:
        uncached = hashing_manager(uncached_backend).search_chunks(
            ACME, "kumquat harvest irrigation", methods=("vector",), limit=8
        )
        assert uncached_backend.vector_cache.nbytes == 0
    finally:
        uncached_backend.close()
    assert [(h.id, h.cosine) for h in cached] == [(h.id, h.cosine) for h in uncached]
    assert len(cached) == 8


def test_int8_dot_products_are_the_same_with_and_without_simsimd():
    rng = np.random.default_rng(3)
    codes, _, _, _ = vector_matrix.quantize(_unit(rng, 500))
    query, _, _, _ = vector_matrix.quantize(_unit(rng, 1))
    exact = codes.astype(np.int64) @ query[0].astype(np.int64)
    assert np.array_equal(vector_cache._int8_dots_numpy(codes, query[0]), exact)
    assert np.array_equal(vector_cache.int8_dots(codes, query[0]), exact)


def test_the_quantization_bound_holds():
    rng = np.random.default_rng(4)
    rows = _unit(rng, 2000)
    codes, scales, errors, norms = vector_matrix.quantize(rows)
    approx = codes.astype(np.float64) * scales[:, None]
    assert np.all(np.linalg.norm(rows - approx, axis=1) <= errors)
    assert np.allclose(np.linalg.norm(approx, axis=1), norms, rtol=1e-6)


def test_100k_by_256_fits_in_32_mb():
    n, dims = 100_000, 256
    matrix = vector_matrix.Matrix(
        generation=1,
        rewrites=0,
        seqs=np.arange(n, dtype=np.int64),
        blocks=(np.zeros((n, dims), dtype=np.int8),),
        scales=np.ones(n, np.float32),
        errors=np.zeros(n, np.float32),
        norms=np.ones(n, np.float32),
        collections=vector_matrix._Labels.of(["default"] * n),
        documents=vector_matrix._Labels.of(["d"] * n),
        valid_from=vector_matrix._Times.of(["2026-01-01"] * n),
        valid_until=vector_matrix._Times.of([None] * n),
    )
    assert matrix.nbytes <= 32 * 2**20


@pytest.mark.parametrize("filters", FILTERS)
def test_a_matrix_in_blocks_returns_what_the_exact_leg_returns(backend, corpus, filters):
    backend.vector_cache.block_rows = 64  # 300 rows: four full blocks and a short one
    with backend.session(JANE) as s:
        for query in (corpus[3], corpus[125], -corpus[7], corpus[260]):
            assert s.kb_vector(query, MODEL, 7, filters) == s.kb_vector_exact(query, MODEL, 7, filters)
    [matrix] = backend.vector_cache._entries.values()
    assert [len(b) for b in matrix.blocks] == [64, 64, 64, 64, 44]
    assert (
        len(matrix.seqs) == 300 == len(matrix.scales) == len(matrix.collections.codes) == len(matrix.valid_from.ranks)
    )


def test_a_load_in_blocks_holds_the_same_rows_as_a_load_in_one(backend, corpus):
    def loaded(block_rows):
        backend.vector_cache.clear()
        backend.vector_cache.block_rows = block_rows
        with backend.session(JANE) as s:
            s.kb_vector(corpus[0], MODEL, 5, ChunkFilters(now=NOW))
        [matrix] = backend.vector_cache._entries.values()
        return matrix

    one, many = loaded(8192), loaded(7)
    assert len(one.blocks) == 1 and len(many.blocks) == 43 and all(len(b) <= 7 for b in many.blocks)
    assert np.array_equal(np.concatenate(many.blocks), one.blocks[0])
    for column in ("seqs", "scales", "errors", "norms"):
        assert np.array_equal(getattr(many, column), getattr(one, column)), column
    for labels in ("collections", "documents"):
        assert np.array_equal(getattr(many, labels).codes, getattr(one, labels).codes)
        assert getattr(many, labels).index == getattr(one, labels).index
    for times in ("valid_from", "valid_until"):
        assert np.array_equal(getattr(many, times).ranks, getattr(one, times).ranks)
        assert getattr(many, times).distinct == getattr(one, times).distinct


def test_an_append_shares_the_full_blocks_and_recuts_only_the_short_last_one(backend, corpus):
    backend.vector_cache.block_rows = 64
    filters = ChunkFilters(now=NOW)
    with backend.session(JANE) as s:
        s.kb_vector(corpus[0], MODEL, 5, filters)
    [first] = backend.vector_cache._entries.values()
    extra = _unit(np.random.default_rng(9), 70)
    _add_chunks(backend, JANE, extra, start=1000, document="doc_new", valid_from="2026-05-01T00:00:00.000Z")
    with backend.session(JANE) as s:
        for query in (extra[0], extra[69], corpus[3]):
            assert s.kb_vector(query, MODEL, 5, filters) == s.kb_vector_exact(query, MODEL, 5, filters)
        assert s.kb_vector(extra[5], MODEL, 5, ChunkFilters(now=NOW, document_id="doc_new")) == s.kb_vector_exact(
            extra[5], MODEL, 5, ChunkFilters(now=NOW, document_id="doc_new")
        )
    [grown] = backend.vector_cache._entries.values()
    assert grown.rewrites == first.rewrites and len(grown.seqs) == 370
    assert all(a is b for a, b in zip(grown.blocks[:4], first.blocks[:4]))  # shared, not copied
    assert [len(b) for b in grown.blocks] == [64, 64, 64, 64, 64, 50]
    with backend.session(JANE) as s:  # a fresh load of the same rows, as the cache reads them
        rows = lambda name, **p: s._run(load_sql("sqlite", name), p)
        rebuilt = vector_matrix.load(rows, grown.generation, grown.rewrites, MODEL, DIMS, 64)
    assert np.array_equal(np.concatenate(grown.blocks), np.concatenate(rebuilt.blocks))
    assert np.array_equal(grown.valid_from.ranks, rebuilt.valid_from.ranks)
    assert grown.valid_from.distinct == rebuilt.valid_from.distinct
    assert np.array_equal(grown.documents.codes, rebuilt.documents.codes)


def test_tenants_with_chunks_each_get_their_own_matrix_and_only_their_own_rows(backend, corpus):
    backend.vector_cache.block_rows = 16
    globex = Identity(tenant="globex", user="jane")
    theirs = _unit(np.random.default_rng(11), 40)
    theirs[0] = corpus[3]  # the same vector in both tenants
    _add_chunks(backend, globex, theirs)
    with backend.session(globex) as s:
        globex_seqs = {r["seq"] for r in s.raw("SELECT seq FROM knowledge_base_chunk")}
        globex_hits = s.kb_vector(corpus[3], MODEL, 300, ChunkFilters(now=NOW))
    with backend.session(JANE) as s:
        acme_hits = s.kb_vector(corpus[3], MODEL, 300, ChunkFilters(now=NOW))
    assert {seq for seq, _ in globex_hits} <= globex_seqs and globex_hits[0][1] == pytest.approx(1.0, abs=1e-6)
    assert not {seq for seq, _ in acme_hits} & globex_seqs and len(acme_hits) > 40
    matrices = {k.tenant: m for k, m in backend.vector_cache._entries.items()}
    assert set(matrices) == {"acme", "globex"} and set(matrices["globex"].seqs.tolist()) == globex_seqs
    assert not set(matrices["acme"].seqs.tolist()) & globex_seqs


def test_a_time_column_read_in_blocks_ranks_as_one_read_of_every_value():
    values = [f"2026-0{1 + i % 9}-01T00:00:{i:02d}Z" if i % 5 else None for i in range(60)]
    values = values[30:] + values[:30]  # later blocks bring values that sort before earlier ones
    start = vector_matrix._Times.of(values[:7])
    column = vector_matrix._NewTimes()
    for i in range(7, 60, 8):
        column.add(values[i : i + 8])
    joined, whole = column.after(start), vector_matrix._Times.of(values)
    assert joined.distinct == whole.distinct and np.array_equal(joined.ranks, whole.ranks)
    assert whole.ranks[values.index(None)] == -1 and len(whole.distinct) == 48
