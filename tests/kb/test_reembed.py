"""Re-embedding a tenant's chunks batch by batch: a run stopped part way leaves what it did, and the next does the rest."""

from __future__ import annotations

from kb_helpers import ACME, GLOBEX, add_doc, hashing_manager

from memgate.manager.kb.embed import HashingEmbedder


def test_a_stopped_reembed_resumes_where_it_stopped_and_touches_no_other_tenant(backend):
    old = hashing_manager(backend)
    for i in range(5):
        add_doc(old, ACME, f"note {i}", f"Note {i}: kumquats and zebras, item {i}.")
    add_doc(old, GLOBEX, "theirs", "Globex keeps its own notes.")
    new = type(old)(backend, embedder=HashingEmbedder(64))
    progress = new.reembed(ACME, batch=2)
    assert next(progress) == (0, 5)
    assert next(progress) == (2, 5)
    progress.close()  # stopped after one batch: those two keep the new model
    assert list(new.reembed(ACME, batch=2)) == [(0, 3), (2, 3), (3, 3)]
    assert list(new.reembed(ACME)) == [(0, 0)]
    assert list(new.reembed(GLOBEX)) == [(0, 1), (1, 1)]  # globex's chunk was never touched above
    hits = new.search_chunks(ACME, "kumquats zebras", methods=("vector",))
    assert len(hits) == 5 and all(h.cosine is not None for h in hits)
