"""Fit the SK-TOD pipeline on DSTC11-format data: KTD logistic regression and the KS scorer with its
threshold.

``train(...)`` splits the instances by dialogue (the first user turn identifies a dialogue) into a fitting
part and a held-out part, fits on the first, tunes the KS threshold on the second and writes a model folder:
``config.json`` + ``ktd.npz`` + ``selection.npz`` (numpy arrays, no pickles), loadable by
``engine.sktod.pipeline.Pipeline(model_dir=...)``.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parley.engine.sktod.embed import Encoder, shared_encoder
from parley.engine.sktod.entities import EntityTracker
from parley.engine.sktod.knowledge import KnowledgeBase, ScoredSnippet, Snippet, ref_key
from parley.engine.sktod.ktd import KTDModel
from parley.engine.sktod.selection import SelectionModel, Selector, mlp_forward, tune
from parley.progress import Progress

FORMAT_VERSION = 1


@dataclass
class KSInstance:
    """One knowledge-seeking turn prepared for selection training/evaluation."""

    index: int
    question: str
    cands: list[Snippet]
    gold: set[Any]
    x: Any  # feature rows
    cos: Any


def dialogue_of(log: Sequence[dict[str, Any]]) -> int:
    """A stable id of the dialogue an instance comes from (instances of one dialogue share the first turn)."""
    return zlib.crc32(str(log[0].get("text", "") if log else "").encode())


def val_half(log: Sequence[dict[str, Any]]) -> int:
    """0 or 1: the half of DSTC11 val an instance's dialogue belongs to. The default model shipped in assets
    is fitted on half 0; the benchmark scores half 1."""
    return dialogue_of(log) % 2


def split_indices(logs: Sequence[Any], dev_fraction: float, seed: int = 0) -> tuple[list[int], list[int]]:
    """(fit, held-out) instance indices, split by dialogue, deterministic."""
    fit: list[int] = []
    dev: list[int] = []
    for i, log in enumerate(logs):
        h = zlib.crc32(f"{seed}:{dialogue_of(log)}".encode()) % 1000
        (dev if h < dev_fraction * 1000 else fit).append(i)
    return fit, dev


def ks_instances(indices: Sequence[int], logs: Sequence[Any], labels: Sequence[Any], kb: KnowledgeBase,
                 selector: Selector, tracker: EntityTracker | None = None, progress: Progress = None,
                 ) -> list[KSInstance]:
    """Feature rows for the knowledge-seeking turns among ``indices``: candidates come from the gold entities
    (``tracker`` None, as for training) or from entity tracking."""
    out = []
    for j, i in enumerate(indices):
        lab = labels[i]
        if lab.get("target") is not True:
            continue
        if tracker is None:
            ents = []
            for k in lab.get("knowledge") or []:
                e = kb.entity(str(k["domain"]), int(k["entity_id"]))
                if e is not None and e not in ents:
                    ents.append(e)
        else:
            ents = tracker.track([t["text"] for t in logs[i]])
        cands = kb.candidates(ents)
        q = logs[i][-1]["text"]
        if cands:
            x, cos = selector.features(q, cands, len(ents))
        else:
            x, cos = None, None
        out.append(KSInstance(i, q, cands, {ref_key(k) for k in lab.get("knowledge") or []}, x, cos))
        if progress and j % 500 == 0:
            progress(f"features {j}/{len(indices)}")
    return out


def fit_mlp(train: Sequence[KSInstance], hidden: int = 64, seed: int = 0, progress: Progress = None,
            ) -> dict[str, Any]:
    """Fit the KS MLP (sklearn) and return its weights as plain arrays."""
    import numpy as np
    from sklearn.neural_network import MLPClassifier

    xs = [t.x for t in train if t.x is not None]
    ys = [np.array([c.key in t.gold for c in t.cands], dtype="int8") for t in train if t.x is not None]
    if not xs:
        raise ValueError("no knowledge-seeking instances with candidates to fit the selector on")
    x = np.vstack(xs)
    y = np.concatenate(ys)
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-6
    if progress:
        progress(f"fitting selection scorer on {len(x)} pairs ({int(y.sum())} relevant)")
    clf = MLPClassifier(hidden_layer_sizes=(hidden,), alpha=1e-3, batch_size=512, learning_rate_init=1e-3,
                        max_iter=30, early_stopping=True, validation_fraction=0.1, n_iter_no_change=4,
                        random_state=seed)
    clf.fit((x - mean) / std, y)
    w: dict[str, Any] = {"mean": mean.astype("float32"), "std": std.astype("float32")}
    for i, (c, b) in enumerate(zip(clf.coefs_, clf.intercepts_, strict=True)):
        w[f"W{i}"] = c.astype("float32")
        w[f"b{i}"] = b.astype("float32")
    return w


def scored(inst: Sequence[KSInstance], model: SelectionModel) -> list[list[ScoredSnippet]]:
    out: list[list[ScoredSnippet]] = []
    for t in inst:
        if t.x is None:
            out.append([])
            continue
        p = mlp_forward(model.weights, t.x) if model.kind == "mlp" else t.cos
        s = [ScoredSnippet(c, float(pi), float(ci)) for c, pi, ci in zip(t.cands, p, t.cos, strict=True)]
        out.append(sorted(s, key=lambda z: -z.score))
    return out


def fit_ktd(indices: Sequence[int], logs: Sequence[Any], labels: Sequence[Any], encoder: Encoder,
            progress: Progress = None) -> KTDModel:
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    turns = [logs[i][-1]["text"] for i in indices]
    y = np.array([labels[i].get("target") is True for i in indices], dtype="int8")
    if len(set(y.tolist())) < 2:
        raise ValueError("KTD needs both knowledge-seeking and ordinary turns in the training data")
    if progress:
        progress(f"fitting KTD on {len(turns)} turns")
    x = encoder.encode(turns, progress)
    clf = LogisticRegression(C=4.0, max_iter=2000)
    clf.fit(x, y)
    return KTDModel(kind="logreg", threshold=0.0,
                    weights={"coef": clf.coef_.astype("float32"),
                             "intercept": clf.intercept_.astype("float32")})


def train(logs: Sequence[Any], labels: Sequence[Any], kb: KnowledgeBase, out_dir: str | Path,
          encoder: Encoder | None = None, dev_fraction: float = 0.2, seed: int = 0, hidden: int = 64,
          train_indices: Sequence[int] | None = None, cross_encoder: str | None = None,
          progress: Progress = None) -> dict[str, Any]:
    """Fit KTD + KS on ``logs``/``labels`` (or on ``train_indices`` of them) and save a model folder.

    With ``cross_encoder`` (a checkpoint path or hub id) no KS scorer is fitted: the cross-encoder scores the
    candidates and only its threshold is tuned on the held-out part. Returns a summary: instance counts, the
    tuned threshold and the held-out instance F.
    """
    if len(logs) != len(labels):
        raise ValueError(f"logs has {len(logs)} instances but labels has {len(labels)}")
    enc = encoder or shared_encoder(None)
    enc.load(progress)
    enc.attach(kb.sha256, [s.text for s in kb])  # the KB's vectors are read from and saved to its own file
    idx = list(range(len(logs))) if train_indices is None else list(train_indices)
    sub_logs = [logs[i] for i in idx]
    fit_local, dev_local = split_indices(sub_logs, dev_fraction, seed)
    fit_idx = [idx[i] for i in fit_local]
    dev_idx = [idx[i] for i in dev_local]
    ktd = fit_ktd(idx, logs, labels, enc, progress)
    selector = Selector(SelectionModel(kind="mlp"), enc)
    dv = ks_instances(dev_idx, logs, labels, kb, selector, progress=progress)
    if cross_encoder:
        base = SelectionModel(kind="cross", cross_encoder=cross_encoder)
        ce = Selector(base, enc)
        ce.load(progress)
        if progress:
            progress(f"scoring {len(dv)} held-out turns with the cross-encoder")
        sets = [ce.score(t.question, t.cands, len({c.key[:2] for c in t.cands})) for t in dv]
        tr: list[KSInstance] = []
    else:
        tr = ks_instances(fit_idx, logs, labels, kb, selector, progress=progress)
        weights = fit_mlp(tr, hidden=hidden, seed=seed, progress=progress)
        base = SelectionModel(kind="mlp", weights=weights)
        sets = scored(dv, base)
    if progress:
        progress(f"tuning the threshold on {len(dv)} held-out turns")
    model, f = tune(sets, [t.gold for t in dv], base)
    enc.save_cache()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    ktd.save(out)
    model.save(out)
    config = {"format": "parley-sktod", "version": FORMAT_VERSION, "encoder": enc.model_ref,
              "ktd": ktd.to_config(), "selection": model.to_config(),
              "trained_on": {"instances": len(idx), "fit_turns": len(tr), "heldout_turns": len(dv)},
              "heldout_instance_f1": f}
    (out / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return config
