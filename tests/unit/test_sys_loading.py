"""Loading safety: pickle-only checkpoints refused unless allowed, weights_only torch.load, fast offline
errors."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from parley.engine import loading
from parley.engine.loading import check_weights, pretrained_kwargs, resolve, safe_torch_load
from parley.engine.systems import build_system
from parley.engine.types import LoadError, Message


def _tiny_gpt2(folder: Path, pickle_only: bool) -> Path:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(["<pad>", "</s>", "<unk>", "<sos_b>", "<eos_b>", "<sos_r>", "<eos_r>",
                                         "hello", "there", "[restaurant]", "food", "thai"])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>",
                            eos_token="</s>").save_pretrained(str(folder))
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_embd=8, n_layer=1, n_head=2, n_positions=64,
                                       eos_token_id=1, pad_token_id=0))
    if pickle_only:
        model.config.save_pretrained(str(folder))
        torch.save(model.state_dict(), folder / "pytorch_model.bin")
    else:
        model.save_pretrained(str(folder))
    return folder


def test_pickle_only_checkpoint_refused_with_clear_message(tmp_path: Path) -> None:
    folder = _tiny_gpt2(tmp_path, pickle_only=True)
    system = build_system(f"hf-causal:model={folder}")
    with pytest.raises(LoadError) as err:
        system.load()
    msg = str(err.value)
    assert "only pickle weights (pytorch_model.bin)" in msg and "allow_pickle=true" in msg
    with pytest.raises(LoadError, match="pickle"):
        system.respond((Message("user", "hello"),))


def test_pickle_only_checkpoint_loads_when_allowed(tmp_path: Path) -> None:
    folder = _tiny_gpt2(tmp_path, pickle_only=True)
    system = build_system(f"hf-causal:model={folder},allow_pickle=true,max_new_tokens=4")
    system.load()
    assert system.loaded
    assert isinstance(system.respond((Message("user", "hello"),)).text, str)


def test_safetensors_folder_is_fine_and_kwargs_are_safe(tmp_path: Path) -> None:
    folder = _tiny_gpt2(tmp_path, pickle_only=False)
    check_weights(folder)
    src = resolve(str(folder))
    assert src.local and src.local_files_only
    kw = pretrained_kwargs(src)
    assert kw["use_safetensors"] is True and kw["trust_remote_code"] is False
    assert pretrained_kwargs(src, allow_pickle=True, trust_remote_code=True)["trust_remote_code"] is True


def test_folder_without_weights_or_config(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="not a model folder"):
        resolve(str(tmp_path))
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(LoadError, match="no model weights"):
        resolve(str(tmp_path))


class _Evil:
    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (print, ("pwned",))


def test_safe_torch_load_is_weights_only(tmp_path: Path) -> None:
    import torch

    good = tmp_path / "good.pt"
    torch.save({"w": torch.ones(2)}, good)
    with pytest.raises(LoadError, match="allow_pickle"):
        safe_torch_load(good)
    assert torch.equal(safe_torch_load(good, allow_pickle=True)["w"], torch.ones(2))
    evil = tmp_path / "evil.pt"
    torch.save({"x": _Evil()}, evil)
    with pytest.raises(LoadError, match="weights_only=True"):
        safe_torch_load(evil, allow_pickle=True)


def test_offline_hub_id_fails_fast_with_one_clear_message() -> None:
    # conftest sets HF_HUB_OFFLINE=1
    t0 = time.perf_counter()
    system = build_system("hf-seq2seq:model=someone/not-a-cached-model")
    with pytest.raises(LoadError) as err:
        system.load()
    assert time.perf_counter() - t0 < 10  # no network retries
    assert "someone/not-a-cached-model" in str(err.value) and "offline" in str(err.value)
    assert "\n" not in str(err.value)


def test_unreachable_hub_detected_quickly(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setattr(loading, "_probe_cache", None)
    t0 = time.perf_counter()
    assert loading.hub_offline() is True
    with pytest.raises(LoadError, match="unreachable"):
        resolve("someone/else")
    assert time.perf_counter() - t0 < 8  # one refused connection, no retries with timeouts


def test_missing_local_path_is_not_taken_for_a_hub_id(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="does not exist"):
        resolve(str(tmp_path / "nope" / "model"))
    with pytest.raises(LoadError, match="no model given"):
        resolve("  ")
