"""The bundled all-MiniLM-L6-v2 sentence encoder run with numpy: no torch import, so ``--system sktod`` starts
in seconds.

sentence-transformers would give the same vectors (a test compares the two), but importing it pulls in torch
and transformers, which takes 10-30 s on a busy 2-core machine, longer than everything else the SK-TOD
pipeline loads. The model is small (6 BERT layers, 384 dimensions): its forward pass is a few matrix products
per layer. This module reads the same files sentence-transformers reads (``model.safetensors``,
``tokenizer.json``, ``sentence_bert_config.json``, ``config.json``) and does exactly what its modules.json
says: the BERT encoder, mean pooling over the attention mask, L2 normalisation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from parley.engine.types import LoadError


class NumpyMiniLM:
    """A BERT-style sentence encoder (mean pooling, normalised) from a sentence-transformers folder."""

    def __init__(self, folder: str | Path) -> None:
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        f = Path(folder)
        try:
            cfg = json.loads((f / "config.json").read_text(encoding="utf-8"))
            st_cfg = json.loads((f / "sentence_bert_config.json").read_text(encoding="utf-8"))
            self.w: dict[str, Any] = load_file(str(f / "model.safetensors"))
            self.tok = Tokenizer.from_file(str(f / "tokenizer.json"))
        except (OSError, ValueError, KeyError) as e:
            raise LoadError(f"cannot read the sentence encoder in {f}: {e}") from None
        if cfg.get("model_type") != "bert" or cfg.get("hidden_act") != "gelu":
            raise LoadError(f"{f} is not a BERT model with GELU activations")
        self.layers = int(cfg["num_hidden_layers"])
        self.heads = int(cfg["num_attention_heads"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.max_len = int(st_cfg.get("max_seq_length", 256))
        self.dim = int(cfg["hidden_size"])
        self.tok.enable_truncation(self.max_len)
        self.tok.no_padding()
        self.np = np

    def _ln(self, x: Any, name: str) -> Any:
        np = self.np
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _dense(self, x: Any, name: str) -> Any:
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def _forward(self, ids: Any, mask: Any) -> Any:
        """Last hidden states, shape (batch, length, dim)."""
        from scipy.special import erf

        np = self.np
        w = self.w
        b, n = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n][None]
        x = self._ln(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        hd = self.dim // self.heads
        bias = (1.0 - mask[:, None, None, :].astype("float32")) * np.float32(np.finfo("float32").min)
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def split(t: Any) -> Any:
                return t.reshape(b, n, self.heads, hd).transpose(0, 2, 1, 3)

            q = split(self._dense(x, p + "attention.self.query"))
            k = split(self._dense(x, p + "attention.self.key"))
            v = split(self._dense(x, p + "attention.self.value"))
            s = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(hd)) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            a = (s / s.sum(-1, keepdims=True)) @ v
            a = a.transpose(0, 2, 1, 3).reshape(b, n, self.dim)
            x = self._ln(self._dense(a, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = self._dense(x, p + "intermediate.dense")
            h = 0.5 * h * (1.0 + erf(h / np.float32(np.sqrt(2.0))))
            x = self._ln(self._dense(h.astype("float32"), p + "output.dense") + x, p + "output.LayerNorm")
        return x

    def encode(self, texts: Sequence[str], batch_size: int = 32) -> Any:
        """L2-normalised float32 sentence vectors, one row per text (batches sorted by length)."""
        np = self.np
        out = np.zeros((len(texts), self.dim), dtype="float32")
        encs = self.tok.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        for start in range(0, len(order), batch_size):
            idx = order[start: start + batch_size]
            n = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), n), dtype="int64")
            mask = np.zeros((len(idx), n), dtype="int64")
            for r, i in enumerate(idx):
                e = encs[i].ids
                ids[r, : len(e)] = e
                mask[r, : len(e)] = 1
            h = self._forward(ids, mask)
            m = mask[:, :, None].astype("float32")
            pooled = (h * m).sum(1) / np.maximum(m.sum(1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[idx] = pooled
        return out
