"""Constrained greedy decoding for ``llm``'s delexicalised drafts: the model writes the words, the
placeholders come in the draft's order and nothing else can carry a value.

At every step the model picks its most likely token among the allowed ones:

- no digits anywhere (every number of the reply is a placeholder filled in afterwards);
- no brackets except an opening ``[`` while placeholders remain; once the model opens one, the next
  placeholder of the draft (``name]``) is written for it;
- no end of reply (or line break) before every placeholder is used; when the free tokens run short, the next
  ``[`` is forced, so the reply always carries all of them;
- a few words that start refusals ("sorry", "AI") are not available to a tourist-office clerk.

So a reply can only fail the later check for style (a dropped question, too long), never for a lost or
invented value.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch
    from transformers import Cache, PreTrainedModel, PreTrainedTokenizerBase

#: tokens a clerk's sentence is made of: words, spaces and ordinary punctuation (no code, no markup)
_CLEAN = re.compile(r"^[ A-Za-z'’,.!?;:\-\[]*$")
_ENDS = re.compile(r"[.!?]")
BANNED_WORDS = ("sorry", "ai", "apologize", "apologise", "apologies", "confusion", "afraid", "unable",
                "equipped")


def text_of(tokenizer: PreTrainedTokenizerBase, ids: list[int] | torch.Tensor) -> str:
    """The text of one sequence of token ids, special tokens left out."""
    text = tokenizer.decode(ids, skip_special_tokens=True)
    return text if isinstance(text, str) else "".join(text)  # a list only for a batch of sequences


class Vocabulary:
    """Token classes of one tokenizer, computed once."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, stops: list[int]) -> None:
        import torch

        n = max(len(tokenizer), max(tokenizer.get_vocab().values()) + 1)
        self.size = n
        self.stops = [i for i in stops if i < n]
        banned = torch.zeros(n, dtype=torch.bool)
        self.opens: list[int] = []
        self.texts: list[str] = [""] * n
        for tok, i in tokenizer.get_vocab().items():
            text = tokenizer.convert_tokens_to_string([tok])
            self.texts[i] = text
            low = text.strip().lower()
            if re.search(r"\d", text) or "]" in text or not _CLEAN.match(text):
                banned[i] = True
            elif "[" in text:
                if text.strip() == "[":
                    self.opens.append(i)
                else:
                    banned[i] = True
            elif low in BANNED_WORDS:
                banned[i] = True
        self.banned = banned
        open_mask = torch.zeros(n, dtype=torch.bool)
        open_mask[self.opens] = True
        self.open_mask = open_mask
        stop_mask = torch.zeros(n, dtype=torch.bool)
        stop_mask[self.stops] = True
        self.stop_mask = stop_mask


def decode_delex(model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, vocab: Vocabulary,
                 ids: torch.Tensor, past: Cache | None, start: int,
                 placeholders: list[str], max_new_tokens: int, question: bool = False,
                 one_sentence: bool = False, copy: str = "", copy_bias: float = 0.0) -> tuple[str, int]:
    """Greedy decoding after the prompt ``ids`` (``past`` holds the KV cache of ``ids[:, :start]``, or None).

    Inside a placeholder the model chooses which of the remaining ones it writes (token by token among their
    tokenisations); ``question``: the reply must ask (the draft does), else it may not; ``one_sentence``: stop
    at the first sentence end once every placeholder is in; ``copy_bias`` is added to the logits of the tokens
    of ``copy`` (the draft sentence), so the model rewords it rather than wanders off. Returns ``(reply text,
    number of tokens generated)``."""
    import torch

    plain = re.sub(r"\[[a-z]+\d?\]", " ", copy)
    favoured = sorted({i for i in tokenizer.encode(plain, add_special_tokens=False) if i < vocab.size})
    end_after_last = bool(re.search(r"\]\s*[.!?]?\s*$", copy)) if copy else False

    remaining = [tokenizer.encode(p + "]", add_special_tokens=False) for p in dict.fromkeys(placeholders)]
    qmark = [i for i, t in enumerate(vocab.texts) if "?" in t] if vocab.texts else []
    # one sentence about as long as the draft's: the placeholders come in before the budget runs out, and no
    # sentence ends while one is missing (a small model otherwise opens with a sentence of its own)
    budget = max_new_tokens
    if one_sentence and copy:
        budget = min(max_new_tokens, int(1.5 * len(tokenizer.encode(plain, add_special_tokens=False))) + 6)
    enders = [i for i, t in enumerate(vocab.texts) if _ENDS.search(t)] if one_sentence else []
    finals = [i for i, t in enumerate(vocab.texts) if t.strip() in (".", "!", "?")] if one_sentence else []
    out: list[int] = []
    inside: list[int] | None = None  # tokens written so far inside an open placeholder
    free = 0
    asked = False
    with torch.inference_mode():
        res = model(ids[:, start:], past_key_values=past, use_cache=True)
        past = res.past_key_values
        logits = res.logits[0, -1]
        while True:
            z = logits[: vocab.size].float().clone()
            if inside is not None:  # only continuations of a remaining placeholder
                k = len(inside)
                allowed = {c[k] for c in remaining if c[:k] == inside and len(c) > k}
                keep = torch.full_like(z, float("-inf"))
                idx = torch.tensor(sorted(allowed), dtype=torch.long)
                keep[idx] = z[idx]
                z = keep
            else:
                if favoured and copy_bias:
                    z[favoured] += copy_bias
                z[vocab.banned] = float("-inf")
                if remaining or (question and not asked):
                    z[vocab.stop_mask] = float("-inf")
                if remaining and enders:
                    z[enders] = float("-inf")
                if remaining and budget - free <= 2 * len(remaining):  # running short: open one now
                    z[~vocab.open_mask] = float("-inf")
                if not remaining:
                    z[vocab.open_mask] = float("-inf")
                if not question and qmark:
                    z[qmark] = float("-inf")
                if not remaining and finals and free >= budget:  # over budget: end the sentence now
                    keep = torch.full_like(z, float("-inf"))
                    ends = [i for i in finals if (vocab.texts[i].strip() == "?") == (question and not asked)]
                    keep[ends or finals] = z[ends or finals]
                    z = keep
            tok = int(torch.argmax(z))
            if not torch.isfinite(z[tok]) or (inside is None and (tok in vocab.stops
                                                                   or free >= max_new_tokens + 8)):
                break
            out.append(tok)
            if inside is not None:
                inside.append(tok)
                done = [c for c in remaining if c == inside]
                if done:
                    remaining.remove(done[0])
                    inside = None
                    if one_sentence and not remaining and end_after_last:
                        break  # the draft sentence ends with this placeholder: so does the rewrite
            else:
                free += 1
                asked = asked or (bool(vocab.texts) and "?" in vocab.texts[tok])
                if tok in vocab.opens and remaining:
                    inside = []
                elif one_sentence and not remaining and re.search(r"[.!?]\s*$", vocab.texts[tok]) and (
                        asked or not question):
                    break
            res = model(torch.tensor([[tok]], device=ids.device), past_key_values=past, use_cache=True)
            past = res.past_key_values
            logits = res.logits[0, -1]
            if inside is None and not remaining and free >= max_new_tokens and (asked or not question):
                break
    return text_of(tokenizer, out), len(out)
