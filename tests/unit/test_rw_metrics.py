"""Change rates (LAUG), transfer metrics (impolite users Table V), spoken numbers."""

from __future__ import annotations

import math

import pytest

from parley.engine.rewrite.metrics import (
    accuracy_impolite,
    bleu,
    change_rates,
    char_change,
    gmean,
    normalise,
    perplexity,
    slot_change,
    word_change,
)
from parley.engine.rewrite.numbers import speak_numbers, spoken_number, spoken_time


def test_normalise() -> None:
    assert normalise("I 'm at John 's college , OK ?") == "i'm at john's college ok"


def test_change_rates_known_values() -> None:
    assert word_change("i want to go", "i want to um go") == (1, 4)
    assert char_change("abc", "abd") == (1, 3)
    assert slot_change(["cambridge", "13:45"], "to cambridge at thirteen forty five") == (1, 2)
    r = change_rates([("I want to go to Cambridge .", "I want to um go to uh Cambridge .")], [["Cambridge"]])
    assert r.word == pytest.approx(2 / 6)
    assert r.slot == 0.0
    r = change_rates([("a b", "a b"), ("a b c d", "x b c d")], [[], []], micro=True)
    assert r.word == pytest.approx(1 / 6)
    assert change_rates([("a b", "a b"), ("a b c d", "x b c d")], [[], []]).word == pytest.approx(0.125)


def test_gmean_matches_paper_table_v() -> None:
    assert gmean(85.3, 43.4, 6.3) == pytest.approx(8.38, abs=0.01)
    assert gmean(96.4, 37.6, 6.2) == pytest.approx(8.36, abs=0.01)
    assert gmean(0, 40, 6) == 0.0


def test_bleu_and_acc() -> None:
    assert bleu(["the cat sat on the mat"], ["the cat sat on the mat"]) == pytest.approx(100.0)
    assert bleu([], []) == 0.0
    assert accuracy_impolite(["Give me the address. Now!", "Could you please help me? Thank you."]) == 50.0


def test_spoken_numbers() -> None:
    assert spoken_time("13:45") == "thirteen forty five"
    assert spoken_time("05:00") == "five o'clock"
    assert spoken_time("17:05") == "seventeen oh five"
    assert spoken_number("3") == "three"
    assert spoken_number("2nd") == "second"
    assert spoken_number("01223365432") == "zero one two two three three six five four three two"
    assert speak_numbers("for 3 people at 13:45") == "for three people at thirteen forty five"


def _tiny_gpt2():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {"<eos>": 0, "<pad>": 1, "[UNK]": 2}
    for w in ["i", "want", "a", "cheap", "hotel", "in", "the", "north", "find", "me", "now", "give",
              "address"]:
        vocab[w] = len(vocab)
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<eos>", pad_token="<pad>",
                                  unk_token="[UNK]")
    import torch

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab), n_positions=64, n_embd=16, n_layer=1, n_head=2))
    return model, tok


def test_perplexity_with_a_tiny_model() -> None:
    model, tok = _tiny_gpt2()
    texts = ["i want a cheap hotel", "find me a hotel in the north now"]
    ppl = perplexity(texts, model, tok, batch_size=1)
    assert 1.0 < ppl < 100.0
    # batching and padding do not change the result
    assert perplexity(texts, model, tok, batch_size=2) == pytest.approx(ppl, rel=1e-4)
    # a uniform model has perplexity = vocabulary size
    import torch

    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
    assert perplexity(texts, model, tok) == pytest.approx(len(tok.get_vocab()), rel=1e-3)
    assert math.isnan(perplexity(["", " "], model, tok))


def test_per_text_perplexity_and_ratio() -> None:
    from parley.engine.rewrite.metrics import perplexities, ppl_ratios

    model, tok = _tiny_gpt2()
    texts = ["i want a cheap hotel", "", "find me a hotel in the north now", "give me the address"]
    each = perplexities(texts, model, tok, batch_size=3)
    assert math.isnan(each[1])
    for t, p in zip(texts, each, strict=True):
        if t:
            assert p == pytest.approx(perplexity([t], model, tok), rel=1e-4)
    ratios = ppl_ratios(["i want a cheap hotel", ""], ["find me a cheap hotel now", "now"], model, tok)
    assert len(ratios) == 1
    assert ratios[0] == pytest.approx(perplexity(["find me a cheap hotel now"], model, tok)
                                      / perplexity(["i want a cheap hotel"], model, tok), rel=1e-4)


def test_preservation_counts_slot_values_and_requested_attributes() -> None:
    from parley.engine.rewrite.metrics import preserved

    befores = ["Could you give me the phone number of the Golden Wok?", "I need a cheap hotel in the north."]
    assert preserved(befores, ["Give me the phone number of the Golden Wok.", "Get me a cheap hotel in the "
                                                                              "north."]) \
        == 100.0
    lost = ["Give me the number of the Golden Wok.", "Get me a hotel in the north."]
    assert preserved(befores, lost) == 0.0


@pytest.mark.subprocess
@pytest.mark.slow
def test_report_with_perplexity_keeps_stderr_clean() -> None:
    import subprocess
    import sys
    from pathlib import Path

    exe = str(Path(sys.executable).parent / "parley")
    r = subprocess.run([exe, "rewrite", "-r", "disfluency", "--report"],
                       input="Could you find me a cheap hotel in the north?\n", capture_output=True,
                       text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    rep = __import__("json").loads(r.stdout)
    assert rep["ppl"] and rep["ppl_ratio_median"] and "acc" not in rep
