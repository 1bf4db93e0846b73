"""GGUF models on llama.cpp (xllamacpp): file checks, thread choice, and the bundled SmolLM2 GGUF loaded for
real — a grammar keeps the placeholders, greedy answers repeat, the prompt prefix comes from the cache, the
HTTP side is a Unix socket in a private folder, and the load is written to the llm log."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from parley.engine import llamacpp
from parley.engine.llamacpp import LlamaServer, check_gguf, choose_threads, log_path
from parley.engine.smollm import bundled_gguf
from parley.engine.systems.llm_cpp import messages, sentence_grammar
from parley.engine.types import LoadError


def test_gguf_files_are_checked(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="does not exist"):
        check_gguf(tmp_path / "missing.gguf")
    (tmp_path / "fake.gguf").write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(LoadError, match="is not a GGUF model file"):
        check_gguf(tmp_path / "fake.gguf")
    with pytest.raises(LoadError, match="is not a GGUF model file"):
        LlamaServer(tmp_path / "fake.gguf")


def test_threads_follow_the_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.3, 0.3, 0.3))
    assert choose_threads() == 2 and choose_threads(3) == 3
    monkeypatch.setattr(os, "getloadavg", lambda: (6.0, 6.0, 6.0))
    assert choose_threads() == 1


def test_library_warnings_go_to_the_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capfd: pytest.CaptureFixture[str]) -> None:
    import warnings

    from parley.engine.systems.llm_torch import warnings_to_log

    monkeypatch.setenv("PARLEY_CACHE", str(tmp_path))
    with warnings_to_log():
        warnings.warn("`torch_dtype` is deprecated! Use `dtype` instead!", FutureWarning, stacklevel=1)
    out, err = capfd.readouterr()
    assert "deprecated" not in out + err
    assert "FutureWarning: `torch_dtype` is deprecated" in log_path().read_text(encoding="utf-8")


def test_the_grammar_keeps_placeholders_in_order_and_the_kind_of_ending() -> None:
    g = sentence_grammar("Could you tell me the day at [name] for [people]?")
    assert g.startswith('root ::= w "[name]" w "[people]" w "?"')
    assert sentence_grammar("Done.").startswith('root ::= w ("." | "!")')
    assert "0-9" not in g and "[a-zA-Z " in g  # no digits among the words


@pytest.mark.slow
def test_bundled_smollm2_runs_on_llama_cpp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_CACHE", str(tmp_path))
    server = LlamaServer(bundled_gguf(), threads=1, n_ctx=1024)
    try:
        sentence = "I have [count] hotels that fit your stay."
        first = server.chat(messages(sentence), max_tokens=40, grammar=sentence_grammar(sentence),
                            cache_prompt=False)
        assert first.new_tokens > 0 and first.prompt_tokens > 100
        if first.finish != "length":  # a finished sentence: the grammar held
            assert first.text.count("[count]") == 1 and not re.search(r"\d", first.text)
            assert first.text.rstrip()[-1] in ".!" and "\n" not in first.text
        same = server.chat(messages(sentence), max_tokens=40, grammar=sentence_grammar(sentence),
                           cache_prompt=False)
        assert same.text == first.text  # greedy, the whole prompt computed again: the same words
        again = server.chat(messages(sentence), max_tokens=40, grammar=sentence_grammar(sentence))
        assert again.cached_tokens >= first.prompt_tokens - 1  # the prompt came from llama.cpp's cache
        assert again.finish == "length" or again.text.count("[count]") == 1
        other = server.chat(messages("Would you like me to book a room?"), max_tokens=40)
        assert other.cached_tokens > 100  # instruction and examples are shared by every sentence
        assert server.address.startswith("unix://")  # no TCP port: nothing else on the machine reaches it
        sock = Path(server.address.removeprefix("unix://"))
        assert sock.is_socket() and sock.parent.stat().st_mode & 0o777 == 0o700
    finally:
        server.close()
    assert not sock.parent.exists()
    assert "llama.cpp loaded" in log_path().read_text(encoding="utf-8")
    assert log_path().parent == tmp_path / "logs"


@pytest.mark.slow
def test_servers_are_shared_per_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_CACHE", str(tmp_path))
    said: list[str] = []
    try:
        a = llamacpp.shared_server(bundled_gguf(), threads=1, progress=said.append)
        assert llamacpp.shared_server(bundled_gguf(), threads=1) is a
        assert said == ["loading SmolLM2-135M-Instruct.Q4_1.gguf on llama.cpp"]
    finally:
        llamacpp.clear_servers()


@pytest.mark.slow
def test_a_server_closed_as_soon_as_it_is_made_stops(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Closed before its HTTP side listens, llama.cpp's server would wait for ever; close waits for it."""
    monkeypatch.setenv("PARLEY_CACHE", str(tmp_path))
    llamacpp.LlamaServer(bundled_gguf(), threads=1).close()
    assert not llamacpp._abandoned


@pytest.mark.slow
def test_a_chat_on_llama_cpp_prints_nothing_of_the_library(tmp_path: Path) -> None:
    """stderr holds parley's own progress lines only; llama.cpp's messages stay out of the terminal."""
    import subprocess
    import sys

    env = {**os.environ, "PARLEY_CACHE": str(tmp_path / "cache")}
    out = subprocess.run([str(Path(sys.executable).with_name("parley")), "--db", str(tmp_path / "t.db"),
                          "chat", "--script", "-", "--system", "llm:model=smollm2,clock=2026-11-26",
                          "--tester", "t"],
                         input="I need a cheap restaurant in the north\n", capture_output=True, text=True,
                         timeout=600, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [
        "loading the MultiWOZ pipeline", "loading SmolLM2-135M-Instruct.Q4_1.gguf on llama.cpp",
        "model ready",
        *[line for line in out.stderr.splitlines() if line.startswith("session ")]], out.stderr
    assert "llama.cpp loaded" in (tmp_path / "cache" / "logs" / "llm.log").read_text(encoding="utf-8")
