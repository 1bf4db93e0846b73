"""Stored sentence vectors: the embedded KB's ship in assets (a fresh install embeds nothing at start-up), one
file per knowledge base and encoder, written atomically, so another process rewriting a cache neither forces
a re-embed nor hands a reader half a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from parley.engine.sktod import embed
from parley.engine.sktod.knowledge import KnowledgeBase, embedded_knowledge_path
from parley.engine.sktod.vectors import VectorFile, file_sha256, shipped_name, text_key

ROOT = Path(__file__).resolve().parents[2]


def small_kb(path: Path, venue: str, sentences: list[str]) -> Path:
    reviews = {str(i): {"traveler_type": "solo", "sentences": {"0": s}} for i, s in enumerate(sentences)}
    data = {"hotel": {"0": {"name": venue, "reviews": reviews, "faqs": {}}}}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


class Counting:
    """Records every text the encoder really embeds (vectors from disk are not counted)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.texts: list[str] = []
        real = embed.Encoder._embed

        def spy(enc: embed.Encoder, texts: list[str], batch_size: int) -> Any:
            self.texts.extend(texts)
            return real(enc, texts, batch_size)

        monkeypatch.setattr(embed.Encoder, "_embed", spy)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty cache folder and no encoder kept from earlier tests (a new process, as far as vectors go)."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("PARLEY_CACHE", str(cache))
    monkeypatch.setattr(embed, "_shared", {})
    return cache


@pytest.mark.slow
def test_shipped_vectors_match_the_embedded_kb_and_the_encoder() -> None:
    kb = KnowledgeBase.load(embedded_knowledge_path())
    enc = embed.Encoder(cache=False)
    f = VectorFile(ROOT / "assets" / "sktod" / shipped_name(enc.fingerprint), enc.fingerprint, kb.sha256)
    assert f.path.is_file(), "run bench/sktod_embeddings.py after changing the KB or the encoder"
    assert kb.sha256 == file_sha256(embedded_knowledge_path())
    vecs = f.read()  # empty unless the file records this KB's hash and this encoder's fingerprint
    texts = sorted({s.text for s in kb})
    assert len(vecs) == len(texts) and all(text_key(t) in vecs for t in texts)
    sample = texts[:: len(texts) // 4][:4]
    np.testing.assert_allclose(np.stack([vecs[text_key(t)] for t in sample]), enc.encode(sample), atol=2e-5)
    assert list(f.path.parent.glob("embeddings-*.npz")) == [f.path]  # no stale file of another encoder


@pytest.mark.slow
def test_first_start_on_a_fresh_cache_embeds_no_knowledge(fresh: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from parley.engine.sktod.pipeline import Pipeline

    seen = Counting(monkeypatch)
    p = Pipeline()
    p.load()
    assert seen.texts == []
    assert not list(fresh.glob("sktod/kb-*.npz"))  # the shipped vectors are read where they are
    assert p.predict(["Is the wifi reliable at the Acorn Guest House?"]).target
    assert len(seen.texts) == 1  # the question only


@pytest.mark.slow
def test_a_cache_rewritten_by_another_process_forces_no_re_embed(fresh: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from parley.engine.sktod.pipeline import Pipeline

    mine = small_kb(tmp_path / "mine.json", "PLUM HOUSE", ["The wifi here was quick.", "Parking is tight.",
                                                             "Breakfast came late but hot."])
    other = small_kb(tmp_path / "other.json", "PEAR LODGE", ["Our room faced a noisy road.",
                                                               "Staff could not have been kinder."])
    # another parley process, started before ours, loads other knowledge, then answers and saves its caches
    # after ours has saved (it read the cache folder while it was still empty)
    code = ("import sys; from parley.engine.sktod.pipeline import Pipeline;"
            "p = Pipeline(knowledge=sys.argv[1]); p.load(); print('loaded', flush=True);"
            "sys.stdin.readline();"
            "p.predict(['Is the road noisy at Pear Lodge?']); p.selector.encoder.save_cache()")
    env = {**os.environ, "PARLEY_CACHE": str(fresh)}
    other_process = subprocess.Popen([sys.executable, "-c", code, str(other)], env=env, cwd=ROOT,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other_process.stdout is not None and other_process.stdin is not None
        assert other_process.stdout.readline().strip() == "loaded"
        seen = Counting(monkeypatch)
        Pipeline(knowledge=mine).load()
        assert len(seen.texts) == 3
        other_process.stdin.write("go\n")
        other_process.stdin.flush()
    finally:
        assert other_process.wait(timeout=300) == 0
    assert len(list(fresh.glob("sktod/kb-*.npz"))) == 2  # one file per knowledge base
    monkeypatch.setattr(embed, "_shared", {})  # a new process of ours
    seen.texts.clear()
    Pipeline(knowledge=mine).load()
    assert seen.texts == []


def test_a_reader_never_sees_half_a_file(tmp_path: Path) -> None:
    f = tmp_path / "kb.npz"
    n = 400
    code = ("import sys, numpy as np; from parley.engine.sktod.vectors import VectorFile;"
            "f = VectorFile(__import__('pathlib').Path(sys.argv[1]), 'enc', 'abc');"
            f"[f.write({{str(k): np.full(384, i, 'float32') for k in range({n})}}, merge=False) "
            "for i in range(60)]")
    writer = subprocess.Popen([sys.executable, "-c", code, str(f)], cwd=ROOT)
    reads = 0
    try:
        while writer.poll() is None or reads == 0:
            got = VectorFile(f, "enc", "abc").read()
            if got:  # before the first write there is nothing; after it always all of one version
                assert len(got) == n
                first = float(got["0"][0])
                assert all(float(v[0]) == first for v in got.values())
                reads += 1
    finally:
        writer.wait(timeout=120)
    assert writer.returncode == 0 and reads > 0
    assert not list(tmp_path.glob("*.tmp"))  # no temporary file left behind


def test_vectors_are_only_read_for_their_knowledge_and_encoder(tmp_path: Path) -> None:
    f = tmp_path / "kb.npz"
    VectorFile(f, "enc-a", "kb-1").write({"k": np.ones(4, "float32")})
    assert set(VectorFile(f, "enc-a", "kb-1").read()) == {"k"}
    assert VectorFile(f, "enc-b", "kb-1").read() == {}
    assert VectorFile(f, "enc-a", "kb-2").read() == {}
    f.write_bytes(b"PK\x03\x04 not really a zip")
    assert VectorFile(f, "enc-a", "kb-1").read() == {}  # a broken file is rebuilt, not fatal


def test_writers_merge_what_is_on_disk(tmp_path: Path) -> None:
    f = VectorFile(tmp_path / "q.npz", "enc", "")
    f.write({"a": np.zeros(3, "float32")})
    VectorFile(tmp_path / "q.npz", "enc", "").write({"b": np.ones(3, "float32")})
    assert set(f.read()) == {"a", "b"}
