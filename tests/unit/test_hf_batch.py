"""``parley run --batch N`` (engine/systems/hf_batch.py): batched greedy decoding gives exactly the tokens of
the one-sequence path — prompts of different lengths, rows stopping at different steps, rows joining a batch
that is already decoding — on a random GPT-2 and on the bundled `neural` model; a batched run stores what an
unbatched run stores; ctrl+c stops a batched run and the same command resumes it."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from parley.cli import main
from parley.engine.systems.hf_batch import Decoder, Gateway, GatewayClosed, Request
from parley.engine.systems.hf_causal import CausalSystem
from tests.corpora import write_corpus
from tests.unit.test_batch_run import _stored, ctrl_c_after, normalised_export
from tests.unit.test_sys_hf import gpt2_dir  # noqa: F401  (the tiny hf-causal checkpoint fixture)

REPO = Path(__file__).resolve().parents[2]
LENGTHS = [1, 3, 17, 9, 40, 2, 25]


@pytest.fixture(scope="module")
def random_gpt2() -> Any:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=97, n_embd=32, n_layer=2, n_head=4, n_positions=128, bos_token_id=0,
                     eos_token_id=0, pad_token_id=0)
    return GPT2LMHeadModel(cfg).eval()


def one_sequence(model: Any, ids: list[int], stop: set[int], max_new: int,
                 tokenizer: Any = None, stop_text: str | None = None) -> list[int]:
    """The batch-size-1 path: ``CausalSystem._decode``, as ``respond`` runs it."""
    import torch

    system = CausalSystem.__new__(CausalSystem)
    system.model, system.tokenizer, system.max_new_tokens, system._kv = model, tokenizer, max_new, None
    return system._decode(torch.tensor([ids]), stop, stop_text)


def prompts(seed: int, vocab: int = 97) -> list[list[int]]:
    import random

    rng = random.Random(seed)
    return [[rng.randrange(1, vocab) for _ in range(n)] for n in LENGTHS]


def test_batched_rows_decode_as_one_sequence(random_gpt2: Any) -> None:
    ps = prompts(1)
    free = [one_sequence(random_gpt2, p, set(), 12) for p in ps]
    stop = {free[2][4], free[4][1]}  # tokens some rows reach early: rows stop at different steps
    alone = [one_sequence(random_gpt2, p, stop, 12) for p in ps]
    reqs = [Request(p, frozenset(stop), None, 12) for p in ps]
    Decoder(random_gpt2, 0, str).run(reqs)
    assert [r.result for r in reqs] == alone
    assert len({len(a) for a in alone}) > 1  # the rows did stop at different steps


def test_rows_joining_a_running_batch_decode_as_alone(random_gpt2: Any) -> None:
    ps = prompts(2)
    alone = [one_sequence(random_gpt2, p, set(), 10 + k) for k, p in enumerate(ps)]
    dec = Decoder(random_gpt2, 0, str)
    reqs = [Request(p, frozenset(), None, 10 + k) for k, p in enumerate(ps)]
    rows, _ = dec.prefill(reqs[:3])
    for _ in range(4):
        assert rows is not None
        rows, _ = dec.step(rows)
    new, _ = dec.prefill(reqs[3:])  # a longer prompt joins rows that already have 4 tokens
    rows = dec.merge(rows, new)
    while rows is not None:
        rows, _ = dec.step(rows)
    assert [r.result for r in reqs] == alone


def test_gateway_batches_the_threads_prompts(random_gpt2: Any) -> None:
    """Eight threads, two prompts each (belief, then response): the tokens of the one-sequence path, decoded
    in shared batches."""
    ps = prompts(3) + prompts(4)[:1]
    alone = [[one_sequence(random_gpt2, p + [k], set(), 6 + k) for k in (0, 1)] for p in ps]
    gate = Gateway(Decoder(random_gpt2, 0, str))
    got: dict[int, list[list[int]]] = {}

    def play(i: int) -> None:
        with gate.member():
            got[i] = [gate.submit(Request(ps[i] + [k], frozenset(), None, 6 + k)) for k in (0, 1)]

    threads = [threading.Thread(target=play, args=(i,)) for i in range(len(ps))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [got[i] for i in range(len(ps))] == alone
    assert max(gate.batches) > 1
    gate.close()


def test_close_ends_the_waiting_threads(random_gpt2: Any) -> None:
    gate = Gateway(Decoder(random_gpt2, 0, str), patience=30)
    errors: list[BaseException] = []

    def waiting() -> None:
        try:
            gate.submit(Request([1, 2, 3], frozenset(), None, 4))
        except GatewayClosed as e:
            errors.append(e)

    with contextlib.ExitStack() as members:
        for _ in range(8):  # eight members, one prompt: the gateway waits for more
            members.enter_context(gate.member())
        t = threading.Thread(target=waiting)
        t.start()
        time.sleep(0.2)
        t0 = time.monotonic()
        gate.close()
        t.join(5)
    assert not t.is_alive() and len(errors) == 1 and time.monotonic() - t0 < 5
    with pytest.raises(GatewayClosed):
        gate.submit(Request([1], frozenset(), None, 2))


@pytest.mark.slow
def test_bundled_model_batched_equals_one_sequence() -> None:
    from parley.engine.systems import build_system

    system: Any = build_system("neural")
    system.load()
    tok = system.tokenizer
    users = ["i want a cheap place to eat in the west", "hi", "a train to ely on sunday after 09:15 please",
             "is there a park in the south ?", "find me a 4 star guesthouse with free parking in the east"]
    texts = [f"<|endoftext|> <|context|> <|user|> {u} <|endofcontext|>" for u in users]
    texts.append(texts[0] + " <|belief|> restaurant pricerange cheap , restaurant area west <|endofbelief|> "
                            "<|dbsearch|> restaurant match>=5 <|endofdbsearch|>")
    stop = {tok.eos_token_id, *tok.convert_tokens_to_ids(["<|endofbelief|>", "<|endofresponse|>"])}
    ids = [tok(t, add_special_tokens=False)["input_ids"] for t in texts]
    alone = [one_sequence(system.model, i, stop, 100) for i in ids]
    reqs = [Request(i, frozenset(stop), None, 100) for i in ids]
    Decoder(system.model, tok.pad_token_id, str).run(reqs)
    assert [r.result for r in reqs] == alone
    assert tok.convert_tokens_to_ids("<|endofresponse|>") in alone[-1]  # the response step was decoded


def _run(*args: str) -> Any:
    res = CliRunner().invoke(main, ["run", *args])
    assert res.exit_code == 0, res.output
    return res


@pytest.mark.slow
def test_batched_run_stores_what_an_unbatched_run_stores(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c.json", 5, turns=3)
    common = ["--system", "neural", "--dialogues", str(corpus), "--condition", "original", "--condition",
              "impolite:scenario=4", "--json", "--bootstrap", "50"]
    one = _run(*common, "--db", str(tmp_path / "1.db"))
    four = _run(*common, "--db", str(tmp_path / "4.db"), "--batch", "4")
    assert json.loads(one.stdout) == json.loads(four.stdout)
    a = normalised_export(tmp_path / "1.db", tmp_path / "1.jsonl")
    b = normalised_export(tmp_path / "4.db", tmp_path / "4.jsonl")
    assert a == b and len(a) == 10  # one line per session


@pytest.mark.subprocess
def test_batched_worker_processes_store_what_batch_1_stores(tmp_path: Path,
                                                            gpt2_dir: Path) -> None:  # noqa: F811
    """--batch 4 --workers 2 --backend process: two processes, each with the model once, four dialogues in
    lockstep in each; the same sessions, turn by turn, and scores as a plain serial run."""
    corpus = write_corpus(tmp_path / "c.json", 12, turns=3)
    common = ["--system", f"hf-causal:model={gpt2_dir},format=simpletod,max_new_tokens=24", "--dialogues",
              str(corpus), "--condition", "original", "--condition", "disfluency", "--seed", "3", "--json",
              "--bootstrap", "50"]
    one = _run(*common, "--db", str(tmp_path / "1.db"))
    two = _run(*common, "--db", str(tmp_path / "2.db"), "--batch", "4", "--workers", "2",
               "--backend", "process")
    assert "2 worker process(es), 4 in lockstep each" in two.stderr
    assert json.loads(one.stdout) == json.loads(two.stdout)
    a = normalised_export(tmp_path / "1.db", tmp_path / "1.jsonl")
    b = normalised_export(tmp_path / "2.db", tmp_path / "2.jsonl")
    assert len(a) == 24 and a == b
    assert sum(len(s["turns"]) for s in a) == 24 * 6  # every user turn and every reply, compared one by one


@pytest.mark.parametrize(("extra", "message"), [
    (["--system", "echo", "--batch", "2"], "does not decode in batches"),
    (["--system", "neural", "--batch", "2", "--workers", "2", "--backend", "thread"],
     "needs --backend process"),
    (["--system", "neural", "--batch", "2", "--backend", "ray"], "does not run on Ray"),
    (["--system", "neural", "--batch", "2", "--backend", "ray", "--workers", "2"], "does not run on Ray"),
])
def test_batch_refusals_are_one_line(tmp_path: Path, extra: list[str], message: str) -> None:
    corpus = write_corpus(tmp_path / "c.json", 2)
    r = CliRunner().invoke(main, ["run", "--dialogues", str(corpus), "--db", str(tmp_path / "x.db"), *extra])
    assert r.exit_code == 2 and message in r.output and "Traceback" not in r.output


@pytest.mark.subprocess
@pytest.mark.parametrize("workers", [[], ["--workers", "2", "--backend", "process"]],
                         ids=["one-process", "two-processes"])
def test_ctrl_c_stops_a_batched_run_and_it_resumes(tmp_path: Path, workers: list[str],
                                                   gpt2_dir: Path) -> None:  # noqa: F811
    corpus = write_corpus(tmp_path / "c.json", 40, turns=4)
    db = tmp_path / "r.db"
    args = [str(Path(sys.executable).with_name("parley")), "run", "--system",
            f"hf-causal:model={gpt2_dir},format=simpletod,max_new_tokens=40", "--dialogues", str(corpus),
            "--batch", "4", *workers, "--bootstrap", "0", "--json", "--db", str(db)]
    code, err, seconds = ctrl_c_after(args, db, 2)
    assert seconds < 45 and code == 130, err  # stopped, not run to the end (checked below)
    assert "interrupted" in err and "Traceback" not in err
    stored = _stored(db)
    assert 2 <= stored < 40
    done = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and f"{stored} stored before" in done.stderr, done.stderr
    clean = tmp_path / "clean.db"
    fresh = subprocess.run([*args[:-1], str(clean)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert fresh.returncode == 0, fresh.stderr
    assert normalised_export(db, tmp_path / "r.jsonl") == normalised_export(clean, tmp_path / "c.jsonl")
