import struct

import numpy as np
import pytest

from memgate.manager.backend.sqlite.kb import to_blob
from memgate.manager.kb.embed import Embedder, HashingEmbedder, default_embedder


def test_hashing_embedder_gives_unit_float32_rows_of_its_dimension():
    vectors = HashingEmbedder(dim=64).embed(["tenant isolation", "vector search over chunks"])
    assert (vectors.shape, vectors.dtype) == ((2, 64), np.float32)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_hashing_embedder_is_the_same_in_every_process():
    # Pinned: Python's hash() is salted per process, so this would fail if it were used.
    vector = HashingEmbedder(dim=16).embed(["Refund policy"])[0]
    expected = np.zeros(16, dtype=np.float32)
    expected[[2, 7, 15]] = np.array([1, 1, -1]) / np.sqrt(3)
    assert np.allclose(vector, expected)
    assert np.array_equal(vector, HashingEmbedder(dim=16).embed(["refund   POLICY"])[0])
    assert HashingEmbedder().name == "hashing-256"


def test_hashing_embedder_scores_shared_words_above_unrelated_text():
    query, related, unrelated = HashingEmbedder().embed(
        ["reset my password", "how to reset a forgotten password", "train timetable to Berlin"]
    )
    assert query @ related > query @ unrelated


def test_text_without_words_embeds_as_a_zero_row():
    assert not HashingEmbedder().embed(["", " ... "]).any()


def test_embedders_satisfy_the_protocol():
    assert isinstance(HashingEmbedder(), Embedder)


def test_sqlite_stores_a_vector_as_a_little_endian_float32_blob():
    blob = to_blob(np.array([1.0, -2.5, 0.0]))
    assert blob == struct.pack("<3f", 1.0, -2.5, 0.0)
    assert np.array_equal(np.frombuffer(blob, dtype="<f4"), np.array([1.0, -2.5, 0.0], dtype=np.float32))


def test_only_one_dimensional_vectors_become_blobs():
    with pytest.raises(ValueError, match=r"^an embedding is a 1-D vector, got shape \(1, 2\)$"):
        to_blob(np.zeros((1, 2)))


def test_default_embedder_is_wordllama_loaded_once_from_the_installed_wheel():
    pytest.importorskip("wordllama")
    embedder = default_embedder()
    assert embedder is default_embedder()
    assert (embedder.name, embedder.dim) == ("wordllama-l2_supercat-256", 256)
    query, paraphrase, unrelated, empty = embedder.embed(
        ["How do I reset my password?", "Steps to change a forgotten login password", "Heavy rain flooded the city", ""]
    )
    assert query @ paraphrase > query @ unrelated + 0.2
    assert not empty.any()
    assert embedder.embed([]).shape == (0, 256)


def test_wordllama_from_mapped_float16_weights_gives_the_librarys_own_vectors_bit_for_bit():
    wordllama = pytest.importorskip("wordllama")
    from pathlib import Path

    from memgate.manager.kb.embed import WordLlamaEmbedder

    texts = ["How do I reset my password?", "", "pump valve pressure " * 60, "naïve café 東京 🚀", "x"]
    texts += [f"chunk {i} about turbines, invoices and the {i % 7} replicas" * (i % 5 + 1) for i in range(150)]
    library = wordllama.WordLlama.load(dim=256, cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    ours = WordLlamaEmbedder()
    weights = ours._weights
    assert (weights.dtype, weights.shape, weights.flags.writeable) == (np.float16, (32000, 256), False)
    assert np.array_equal(weights.astype(np.float32), library.embedding)
    expected = library.embed(texts, norm=False)
    norms = np.linalg.norm(expected, axis=1, keepdims=True)
    expected = np.divide(expected, norms, out=np.zeros_like(expected), where=norms > 0)
    assert np.array_equal(ours.embed(texts), expected)


def test_a_safetensors_tensor_whose_bytes_do_not_match_its_shape_is_refused(tmp_path):
    import json

    from memgate.manager.kb.embed import mapped_safetensor

    header = json.dumps({"embedding.weight": {"dtype": "F16", "shape": [4, 3], "data_offsets": [0, 22]}}).encode()
    path = tmp_path / "bad.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + bytes(22))
    with pytest.raises(ValueError, match=r"holds 22 bytes, not \(4, 3\) of float16$"):
        mapped_safetensor(path)
    good = json.dumps({"embedding.weight": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}}).encode()
    path.write_bytes(struct.pack("<Q", len(good)) + good + struct.pack("<4f", 1, 2, 3, 4))
    assert mapped_safetensor(path).tolist() == [[1, 2], [3, 4]]


def test_the_default_embedder_does_not_import_the_wordllama_package():
    """Its import pulls in a download path (requests and more) and sets the root logger's level."""
    pytest.importorskip("wordllama")
    import subprocess
    import sys

    probe = (
        "import logging, sys; from memgate.manager import default_embedder; e = default_embedder(); "
        "e.embed(['pump valve']); print(e.name, 'wordllama' in sys.modules, logging.getLogger().level)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["wordllama-l2_supercat-256", "False", "30"], done.stderr
