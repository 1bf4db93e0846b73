"""``hf-causal``: UBAR / SimpleTOD / AuGPT-style decoder-only checkpoints (GPT-2 and the like).

``hf-causal:model=PATH|HUB_ID[,format=ubar|simpletod|augpt|PATH.toml][,max_new_tokens=N][,allow_pickle=true]
[,db=DIR]`` (checkpoint code runs only with ``--trust-remote-code``)

The model continues one sequence whose segment markers and order come from the format file, e.g. UBAR's
``<sos_u> … <eos_u> <sos_b> … <eos_b> <sos_db> … <eos_db> <sos_a> … <eos_a> <sos_r> … <eos_r>``. Generation stops at
the end of the belief state; parley parses it, queries the DB and appends the DB segment itself; the model then
writes the act and the delexicalised response up to the response end marker, which parley lexicalises. Formats
with ``history = "full"`` (UBAR) feed every segment of earlier turns back, as the model was trained.
"""

from __future__ import annotations

from typing import Any

from parley.engine.loading import Source, load_pretrained, pretrained_kwargs, say
from parley.engine.systems.hf_base import HFTODSystem, TurnRecord, check_special_tokens
from parley.engine.systems.hf_common import State, between, join
from parley.progress import Progress


def stop_criteria(tokenizer: Any, stop: str, prompt_len: int) -> Any:
    """Stop once the decoded new text contains ``stop`` (works with any tokenizer, byte-level or not)."""
    from transformers import StoppingCriteria, StoppingCriteriaList

    class _Stop(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            import torch

            tail = tokenizer.decode(input_ids[0, max(prompt_len, input_ids.shape[1] - 16):],
                                    skip_special_tokens=False)
            return torch.full((input_ids.shape[0],), stop in tail, dtype=torch.bool, device=input_ids.device)

    return StoppingCriteriaList([_Stop()])


class CausalSystem(HFTODSystem):
    """A decoder-only end-to-end TOD checkpoint driven by a format file."""

    name = "hf-causal"
    kind = "causal"
    default_format = "ubar"

    def _load_model(self, src: Source, progress: Progress) -> tuple[Any, Any]:
        from transformers import AutoModelForCausalLM

        model, tok = load_pretrained(src.ref, pretrained_kwargs(src, self.allow_pickle, self.trust_remote_code),
                                     AutoModelForCausalLM, progress, self.model_ref)
        if tok.pad_token_id is None and tok.eos_token_id is not None:
            tok.pad_token = tok.eos_token
        self.missing_tokens = check_special_tokens(self.format, tok)
        say(progress, "model ready")
        return model, tok

    def _input_limit(self) -> int:
        if self.max_input_tokens:
            return self.max_input_tokens
        cfg = getattr(self.model, "config", None)
        n = getattr(cfg, "n_positions", None) or getattr(cfg, "max_position_embeddings", None) or 1024
        return max(16, min(int(n), 4096) - self.max_new_tokens)

    def _generate(self, text: str, stop: str | None = None) -> str:
        import torch

        ids = self.tokenizer(text, return_tensors="pt")["input_ids"][:, -self._input_limit():]
        kwargs: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, "do_sample": False, "num_beams": 1,
                                  "pad_token_id": self.tokenizer.pad_token_id,
                                  "attention_mask": torch.ones_like(ids)}
        if stop:
            stop_id = self.tokenizer.convert_tokens_to_ids(stop) if stop in self.tokenizer.get_vocab() else None
            if stop_id is not None:
                eos = self.tokenizer.eos_token_id
                kwargs["eos_token_id"] = [stop_id] + ([eos] if eos is not None else [])
            else:
                kwargs["stopping_criteria"] = stop_criteria(self.tokenizer, stop, ids.shape[1])
        with torch.inference_mode():
            out = self.model.generate(ids, **kwargs)
        new = self.tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=False)
        eos = self.tokenizer.eos_token
        if isinstance(eos, str) and eos and eos != stop:
            new = new.split(eos, 1)[0]
        return " ".join(new.split())

    def _prefix(self, records: list[TurnRecord], user: str) -> str:
        fmt = self.format
        return join(self.context(records, user, full=fmt.history == "full"), fmt.belief_start)

    def _generate_belief(self, records: list[TurnRecord], user: str, prev: State) -> tuple[str, str]:
        fmt = self.format
        self._prompt = self.fit(lambda recs: self._prefix(recs, user), records)
        raw = self._generate(self._prompt, stop=fmt.belief_end or None)
        belief = raw.split(fmt.belief_end, 1)[0] if fmt.belief_end else raw
        return belief.strip(), raw

    def _generate_response(self, records: list[TurnRecord], user: str, belief: str, db_text: str
                           ) -> tuple[str, str, str]:
        fmt = self.format
        opener = fmt.act_start or fmt.response_start
        prompt = join(self._prompt, belief, fmt.belief_end, db_text, opener)
        raw = self._generate(prompt, stop=fmt.response_end or None)
        act, rest = "", raw
        if fmt.act_start:
            if fmt.act_end and fmt.act_end in raw:
                act, rest = raw.split(fmt.act_end, 1)
            else:
                act, rest = raw, ""
            rest = between(rest, fmt.response_start, fmt.response_end)
        else:
            rest = between(raw, "", fmt.response_end)
        return act.strip(), rest.strip(), raw
