"""Helpers for the tests of "typed means stored": a checkpoint folder that cannot load, signals at their
defaults in a child, the user turns a database holds (read from another connection), waiting on a
condition."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path


def default_signals() -> None:
    """For ``preexec_fn``: the child starts with SIGINT, SIGTERM and SIGHUP at their defaults, as from a
    terminal, even when the suite runs as a background job or under nohup (which a child inherits)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def broken_checkpoint(folder: Path) -> Path:
    """A GPT-2 model folder (config, tokenizer) whose weights file is empty: loading it fails."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {t: i for i, t in enumerate(["<pad>", "</s>", "<unk>", "hello"])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "<unk>", "pad_token": "<pad>",
         "eos_token": "</s>"}))
    (folder / "config.json").write_text(json.dumps(
        {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": 4, "n_embd": 8,
         "n_layer": 1, "n_head": 2, "n_positions": 64, "bos_token_id": 1, "eos_token_id": 1}))
    (folder / "model.safetensors").write_bytes(b"")
    return folder


def user_turns(db: Path) -> list[tuple[str, str]]:
    """(text, status) of every user turn in ``db``, in order (none while it does not exist)."""
    return [(str(t), str(s)) for t, s, _ in user_rows(db)]


def user_rows(db: Path) -> list[tuple[str, str, str | None]]:
    """(text, status, error) of every user turn in ``db``, in order."""
    if not db.exists():
        return []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute("SELECT text, status, error FROM turns WHERE role = 'user' "
                            "ORDER BY session_id, \"index\"").fetchall()
    except sqlite3.OperationalError:  # the tables are not there yet
        return []
    finally:
        conn.close()


def sessions(db: Path) -> list[tuple[str, str | None]]:
    """(system_name, ended_at) of every session in ``db``."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute("SELECT system_name, ended_at FROM sessions ORDER BY started_at").fetchall()
    finally:
        conn.close()


def wait_for(predicate: Callable[[], bool], seconds: float = 120.0) -> bool:
    """Whether ``predicate`` came true (polled); ``seconds`` only bounds a test that would otherwise hang."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()
