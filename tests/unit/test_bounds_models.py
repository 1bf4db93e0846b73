"""A checkpoint is sized before anything of it is allocated: its config against its weight files (read from
the safetensors headers) against the memory available. A folder whose config.json asks for a model its
weights do not hold, or a model that does not fit, is refused in one line naming both numbers — run as a
user would, in a child process under a memory limit (without one, such a folder made parley allocate 21 GB
until the kernel killed it). transformers' multi-line load report becomes one parley line."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

from tests.unit.limited import one_error, run_limited

# Each test runs the real command in a child process under a memory limit.
pytestmark = pytest.mark.subprocess

MEM_MB = 3000  # torch and transformers take about 1 GB of address space before any model


def _tokenizer(folder: Path) -> int:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(["<pad>", "</s>", "<unk>", "hello", "there", "food", "thai"])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>",
                            eos_token="</s>").save_pretrained(str(folder))
    return len(vocab)


def _config(vocab: int, **kw: Any) -> Any:
    from transformers import GPT2Config

    return GPT2Config(vocab_size=vocab, n_positions=64, bos_token_id=1, eos_token_id=1, pad_token_id=0,
                      **{"n_embd": 8, "n_layer": 1, "n_head": 2, **kw})


def _good(folder: Path) -> Path:
    import torch
    from transformers import GPT2LMHeadModel

    folder.mkdir()
    vocab = _tokenizer(folder)
    torch.manual_seed(0)
    GPT2LMHeadModel(_config(vocab)).save_pretrained(str(folder))
    return folder


def _safetensors(path: Path, tensors: dict[str, tuple[list[int], str]], sparse: bool = False) -> None:
    """A safetensors file with these (shape, dtype) tensors; ``sparse``: the data is a hole (no disk)."""
    size = {"F32": 4, "F16": 2}
    header: dict[str, Any] = {}
    offset = 0
    for name, (shape, dtype) in tensors.items():
        n = size[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    with path.open("wb") as fh:
        fh.write(struct.pack("<Q", len(raw)) + raw)
        if sparse:
            fh.truncate(8 + len(raw) + offset)
        else:
            fh.write(b"\0" * offset)


def _chat(model: Path, tmp_path: Path, *pre: str) -> Any:
    script = tmp_path / "turns.txt"
    script.write_text("hello there\n", encoding="utf-8")
    return run_limited([*pre, "chat", "--system", f"hf-causal:model={model}", "--script", str(script),
                        "--db", str(tmp_path / "p.db")], mem_mb=MEM_MB)


def test_a_config_far_bigger_than_its_weights_is_refused(tmp_path: Path) -> None:
    """config.json asks for n_embd=16384 beside a 56-byte weights file."""
    folder = tmp_path / "big"
    folder.mkdir()
    _config(_tokenizer(folder), n_embd=16384, n_head=16).save_pretrained(str(folder))
    _safetensors(folder / "model.safetensors", {"x": ([14], "F32")})
    line = one_error(_chat(folder, tmp_path))
    assert "config.json describes 3,22" in line, line
    assert "parameters but the weight files (model.safetensors) hold 14 values" in line, line
    assert not (tmp_path / "p.db").exists()


def test_a_model_bigger_than_the_memory_is_refused_before_it_is_allocated(tmp_path: Path) -> None:
    """Weights that match their config (1.6 billion parameters, a sparse file) but need 6.5 GB in float32."""
    import torch
    from transformers import GPT2LMHeadModel

    folder = tmp_path / "huge"
    folder.mkdir()
    config = _config(_tokenizer(folder), n_embd=4096, n_layer=8, n_head=16)
    config.save_pretrained(str(folder))
    with torch.device("meta"):
        shapes = {n: (list(p.shape), "F16") for n, p in GPT2LMHeadModel(config).state_dict().items()
                  if n != "lm_head.weight"}
    _safetensors(folder / "model.safetensors", shapes, sparse=True)
    line = one_error(_chat(folder, tmp_path))
    assert "parameters need 6,4" in line and "of memory in float32, but" in line, line
    assert line.endswith("is available"), line


def test_a_config_with_absurdly_many_layers_is_refused_before_it_is_built(tmp_path: Path) -> None:
    folder = tmp_path / "deep"
    folder.mkdir()
    _config(_tokenizer(folder), n_layer=100_000).save_pretrained(str(folder))
    _safetensors(folder / "model.safetensors", {"x": ([14], "F32")})
    assert "config.json asks for 100,000 layers (n_layer)" in one_error(_chat(folder, tmp_path))


@pytest.fixture
def missing_one(tmp_path: Path) -> Path:
    """A good checkpoint whose weights file lacks one small tensor (the final layer norm's bias)."""
    from safetensors.torch import load_file, save_file

    folder = _good(tmp_path / "m")
    weights = load_file(str(folder / "model.safetensors"))
    del weights["transformer.ln_f.bias"]
    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})
    return folder


def test_transformers_load_report_is_one_line(missing_one: Path, tmp_path: Path) -> None:
    r = _chat(missing_one, tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "LOAD REPORT" not in r.stderr and "MISSING" not in r.stderr, r.stderr
    warnings = [ln for ln in r.stderr.splitlines() if "initialised at random" in ln]
    assert warnings == [f"warning: {missing_one}: 1 weight(s) not in the checkpoint, initialised at random "
                        "(parley --verbose lists them)"], r.stderr


def test_verbose_shows_transformers_report(missing_one: Path, tmp_path: Path) -> None:
    r = _chat(missing_one, tmp_path, "--verbose")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "LOAD REPORT" in r.stderr and "transformer.ln_f.bias" in r.stderr, r.stderr


def test_a_weight_of_another_shape_is_one_line(tmp_path: Path) -> None:
    from safetensors.torch import load_file, save_file

    folder = _good(tmp_path / "m")
    weights = load_file(str(folder / "model.safetensors"))
    weights["transformer.ln_f.weight"] = weights["transformer.ln_f.weight"].reshape(2, 4).contiguous()
    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})
    r = _chat(folder, tmp_path)
    line = one_error(r)
    assert "1 weight(s) in the checkpoint have another shape than its config.json gives" in line, line
    assert "LOAD REPORT" not in r.stderr and "MISMATCH" not in r.stderr, r.stderr
