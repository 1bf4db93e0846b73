"""hf-seq2seq and hf-causal end to end on tiny random-weight T5 / GPT-2 models built here (safetensors)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.engine.spec import SpecError
from parley.engine.systems import build_system
from parley.engine.types import LoadError, Message, TurnError

_TEXT = ("i want a cheap chinese restaurant in the centre please book it for 2 people on monday at 18:30 "
    "food area pricerange name phone is there are [value_name] [value_phone] [value_choice] "
    "[value_reference] [value_address] [value_postcode] [restaurant_name] [restaurant_phone] [restaurant] "
    "[hotel] [train] [inform] [request] [db_0] [db_1] [db_2] [db_3] serves at on and reference number thanks "
    "what would you like day translate dialogue to belief state: system response: people time leave arrive "
    "destination departure cambridge london kings cross restaurant ok , . ? hi hello inform choice")
WORDS = _TEXT.split()
SPECIALS = ["<pad>", "</s>", "<unk>", "<sos_u>", "<eos_u>", "<sos_b>", "<eos_b>", "<sos_db>", "<eos_db>",
            "<sos_a>", "<eos_a>", "<sos_r>", "<eos_r>", "<|endoftext|>", "<|context|>", "<|endofcontext|>",
            "<|user|>", "<|system|>", "<|belief|>", "<|endofbelief|>", "<|action|>", "<|endofaction|>",
            "<|response|>", "<|endofresponse|>", "<sos_context>", "<eos_context>", "[db_nores]"]
USER = "i want a cheap chinese restaurant in the centre"


def _tokenizer(folder: Path):  # type: ignore[no-untyped-def]
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {t: i for i, t in enumerate(dict.fromkeys(SPECIALS + WORDS))}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>",
                                   eos_token="</s>", additional_special_tokens=SPECIALS[3:])
    fast.save_pretrained(str(folder))
    return fast


@pytest.fixture(scope="module")
def t5_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    folder = tmp_path_factory.mktemp("tiny-t5")
    tok = _tokenizer(folder)
    torch.manual_seed(0)
    cfg = T5Config(vocab_size=len(tok), d_model=16, d_ff=32, d_kv=8, num_layers=1, num_decoder_layers=1,
                   num_heads=2, pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id,
                   decoder_start_token_id=tok.pad_token_id)
    T5ForConditionalGeneration(cfg).save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    folder = tmp_path_factory.mktemp("tiny-gpt2")
    tok = _tokenizer(folder)
    torch.manual_seed(0)
    cfg = GPT2Config(vocab_size=len(tok), n_embd=16, n_layer=1, n_head=2, n_positions=256,
                     bos_token_id=tok.eos_token_id, eos_token_id=tok.eos_token_id,
                     pad_token_id=tok.pad_token_id)
    GPT2LMHeadModel(cfg).save_pretrained(str(folder))
    return folder


def _script_generate(system, outputs: list[str], causal: bool):  # type: ignore[no-untyped-def]
    """Make the model 'write' the given strings in turn (through the real tokenizer); returns the prompts
    seen.

    Causal systems decode token by token (``_decode``); seq2seq systems call ``model.generate``."""
    import torch

    tok = system.tokenizer
    calls: list[str] = []
    queue = list(outputs)

    def new_ids() -> list[int]:
        return tok(queue.pop(0), add_special_tokens=False)["input_ids"]

    if causal:
        def decode(ids, stop_ids, stop_text):  # type: ignore[no-untyped-def]
            calls.append(tok.decode(ids[0], skip_special_tokens=False))
            return new_ids()

        system._decode = decode
        return calls

    def generate(input_ids=None, **kwargs):  # type: ignore[no-untyped-def]
        ids = input_ids if input_ids is not None else kwargs["input_ids"]
        calls.append(tok.decode(ids[0], skip_special_tokens=False))
        return torch.tensor([[tok.pad_token_id, *new_ids(), tok.eos_token_id]])

    system.model.generate = generate
    return calls


def test_seq2seq_random_weights_full_path(t5_dir: Path) -> None:
    system = build_system(f"hf-seq2seq:model={t5_dir},format=pptod,max_new_tokens=12")
    turn = system.respond((Message("user", USER),))
    assert isinstance(turn.text, str) and turn.text
    assert turn.internals["format"] == "pptod"
    assert "db" in turn.internals and turn.latency_ms > 0


def test_seq2seq_scripted_belief_db_lexicalise(t5_dir: Path) -> None:
    system = build_system(f"hf-seq2seq:model={t5_dir},format=pptod")
    system.load()
    calls = _script_generate(system, [
        "<sos_b> [restaurant] food chinese area centre pricerange cheap <eos_b>",
        "<sos_r> [value_name] serves chinese food , phone [value_phone] . <eos_r>",
    ], causal=False)
    turn = system.respond((Message("user", USER),))
    assert calls[0].startswith("translate dialogue to belief state: <sos_context> <sos_u> i want a cheap "
                               "chinese")
    assert calls[1].startswith("translate dialogue to system response:")
    assert "<sos_db> [db_3] <eos_db>" in calls[1] or "<sos_db> [db_2] <eos_db>" in calls[1]
    assert turn.state == {"restaurant": {"food": "chinese", "area": "centre", "pricerange": "cheap"}}
    venue = turn.internals["db"]["venues"][0]
    from parley.engine.mwdb import load_db

    row = load_db().find("restaurant", venue)
    assert row is not None and row["food"] == "chinese"
    assert turn.text == f"{venue} serves chinese food, phone {row['phone']}."
    assert turn.internals["unfilled"] == []
    assert turn.internals["delexicalised"].startswith("[value_name]")


def test_causal_random_weights_full_path(gpt2_dir: Path) -> None:
    system = build_system(f"hf-causal:model={gpt2_dir},format=ubar,max_new_tokens=8")
    turn = system.respond((Message("user", USER),))
    assert isinstance(turn.text, str) and turn.text
    assert turn.internals["format"] == "ubar"


def test_causal_scripted_two_turns_keeps_session_history(gpt2_dir: Path) -> None:
    system = build_system(f"hf-causal:model={gpt2_dir}")
    system.load()
    calls = _script_generate(system, [
        "[restaurant] food chinese area centre <eos_b>",
        "[restaurant] [inform] name [request] day <eos_a> <sos_r> [value_name] is there . what day ? <eos_r>",
        "[restaurant] food chinese area centre day monday people 2 time 18:30 <eos_b>",
        "[restaurant] [inform] reference <eos_a> <sos_r> reference number [value_reference] . <eos_r>",
    ], causal=True)
    t1 = system.respond((Message("user", USER),))
    assert t1.state["restaurant"] == {"food": "chinese", "area": "centre"}
    assert t1.acts[0]["act"] == "inform" and t1.acts[0]["domain"] == "restaurant"
    assert calls[1].rstrip().endswith("<sos_a>") and "<sos_db> [db_" in calls[1]
    assert "[value_name]" not in t1.text and t1.text.endswith("what day?")
    history = (Message("user", USER), Message("system", t1.text), Message("user", "on monday at 18:30 for 2"))
    t2 = system.respond(history)
    # UBAR feeds the earlier turn back with all its segments, delexicalised
    assert "<sos_b> [restaurant] food chinese area centre <eos_b>" in calls[2]
    assert "<sos_r> [value_name] is there . what day ? <eos_r>" in calls[2]
    assert t2.state["restaurant"]["book_time"] == "18:30" and t2.state["restaurant"]["book_people"] == "2"
    ref = t2.internals["filled"]["[value_reference]"]
    assert len(ref) == 8 and ref in t2.text


def test_history_from_elsewhere_is_rebuilt_from_text(gpt2_dir: Path) -> None:
    system = build_system(f"hf-causal:model={gpt2_dir},format=simpletod")
    system.load()
    calls = _script_generate(system, ["restaurant food chinese <|endofbelief|>",
                                      "restaurant inform choice <|endofaction|> <|response|> ok . <|"
                                      "endofresponse|>"],
                             causal=True)
    history = (Message("user", "hi"), Message("system", "hello there"), Message("user", USER))
    turn = system.respond(history)
    assert turn.state == {"restaurant": {"food": "chinese"}}
    assert "<|user|> hi <|system|> hello there <|user|> i want" in calls[0]
    assert turn.text == "ok."


def test_bad_params_and_missing_model(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="needs model="):
        build_system("hf-seq2seq")
    with pytest.raises(SpecError, match="unknown format"):
        build_system("hf-causal:model=x,format=nope")
    with pytest.raises(SpecError, match="for causal models"):
        build_system("hf-seq2seq:model=x,format=ubar")
    with pytest.raises(SpecError, match="max_new_tokens"):
        build_system("hf-seq2seq:model=x,max_new_tokens=0")
    system = build_system(f"hf-seq2seq:model={tmp_path / 'absent'}")
    with pytest.raises(LoadError, match="does not exist"):
        system.respond((Message("user", "hi"),))


def test_turn_error_when_generation_fails(gpt2_dir: Path) -> None:
    system = build_system(f"hf-causal:model={gpt2_dir}")
    system.load()

    def boom(*a, **k):  # type: ignore[no-untyped-def]
        raise RuntimeError("out of memory")

    system.model.forward = boom
    with pytest.raises(TurnError, match="out of memory"):
        system.respond((Message("user", "hi"),))


def test_lexicalised_reply_is_stored_by_the_session(gpt2_dir: Path, tmp_path: Path) -> None:
    from parley.engine.session import Session
    from parley.store import open_store

    system = build_system(f"hf-causal:model={gpt2_dir}")
    system.load()
    _script_generate(system, ["[restaurant] food chinese area centre <eos_b>",
                              "[restaurant] [inform] phone <eos_a> <sos_r> [value_name] , [value_phone] . "
                              "<eos_r>"],
                     causal=True)
    store = open_store(tmp_path / "parley.db")
    session = Session(store, system, system_spec="hf-causal")
    ex = session.turn(USER)
    assert ex.ok and ex.reply is not None
    rows = store.turns(session.id)
    stored = rows[-1]
    assert stored.role == "system" and stored.text == ex.reply.text and "[value_" not in stored.text
    assert stored.internals["state"] == {"restaurant": {"food": "chinese", "area": "centre"}}
    assert stored.internals["internals"]["delexicalised"] == "[value_name] , [value_phone] ."
    system._decode = None  # a broken model: the session stores a failed turn and goes on
    ex2 = session.turn("thanks")
    assert not ex2.ok and "generation failed" in (ex2.error or "")
    assert store.turns(session.id)[-1].status == "failed"


@pytest.mark.parametrize(("outputs", "reason"), [
    (["restaurant food chinese , restaurant area"], "no end marker <|endofbelief|>"),
    (["restaurant phone is , restaurant food chinese <|endofbelief|>"],
     "outside the ontology: restaurant phone is"),
    (["restaurant food chinese <|endofbelief|>", "restaurant inform name <|endofaction|> <|response|> "
                                                 "[value_name] "
      "is"], "no end marker <|endofresponse|>"),
    (["restaurant food chinese <|endofbelief|>", "<|endofaction|> <|response|> <|endofresponse|>"], "empty"),
])
def test_malformed_generation_becomes_the_fallback_reply(gpt2_dir: Path, outputs: list[str],
                                                         reason: str) -> None:
    from parley.engine.systems.hf_base import FALLBACK

    system = build_system(f"hf-causal:model={gpt2_dir},format=simpletod")
    system.load()
    calls = _script_generate(system, outputs, causal=True)
    turn = system.respond((Message("user", USER),))
    assert turn.text == FALLBACK and len(calls) == len(outputs)
    assert turn.internals["fallback"] is True and reason in turn.internals["reason"]
    raw = turn.internals["raw_output"]
    assert raw["belief"] == " ".join(outputs[0].split()) and raw["response"] == " ".join(outputs[1:]).strip()
    if "ontology" in reason:
        assert turn.internals["invalid_belief"] == ["restaurant phone is"]
    if len(outputs) == 1:  # an unusable belief state leaves the state as it was
        assert turn.state == {}
    # the session goes on: the next turn sees the fallback as what the system said
    _script_generate(system, ["<|endofbelief|>", "<|endofaction|> <|response|> ok . <|endofresponse|>"],
                     causal=True)
    nxt = system.respond((Message("user", USER), Message("system", FALLBACK), Message("user", "thanks")))
    assert nxt.text == "ok." and nxt.internals["fallback"] is False


@pytest.mark.parametrize("fmt", ["ubar", "simpletod"])
def test_reusing_the_kv_cache_changes_nothing(gpt2_dir: Path, fmt: str) -> None:
    """The response step (and UBAR's next turn) extends the previous input: the cached prefix is reused, and
    the greedy output is the same as with a fresh cache every call."""
    outputs = []
    for reuse in (True, False):
        system = build_system(f"hf-causal:model={gpt2_dir},format={fmt},max_new_tokens=6")
        system.prefix_cache = reuse
        t1 = system.respond((Message("user", USER),))
        t2 = system.respond((Message("user", USER), Message("system", t1.text), Message("user", "on monday")))
        outputs.append([t1.internals["raw_output"], t2.internals["raw_output"], t2.text])
    assert outputs[0] == outputs[1]
