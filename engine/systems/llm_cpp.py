"""``llm``'s llama.cpp backend: one delexicalised draft sentence at a time, reworded by a GGUF chat model
under a grammar.

The prompt is an instruction and a few example pairs (written for parley), then the sentence; the instruction
and examples are the same for every request, so llama.cpp takes them from its prompt cache and only the
sentence is new. Greedy decoding (the same draft gives the same words). The grammar (GBNF) lets the model
write plain words and punctuation around the sentence's placeholders, each exactly once and in the draft's
order, with no digits, no other brackets, no line break and no markup, and one sentence ending the way the
draft's does (a question stays a question). Whether the words still say what the draft says is checked
afterwards (:mod:`engine.systems.llm_reword`), by rules, not by the model.
"""

from __future__ import annotations

import re
from pathlib import Path

from parley.engine.llamacpp import Completion, LlamaServer, shared_server
from parley.progress import Progress

INSTRUCTION = (
    "You reword one sentence said by a clerk at the Cambridge tourist office. Say it in other, natural words "
    "with exactly the same meaning: a question asks for the same things, a booking stays booked, an offer "
    "stays an offer, and nothing is added. Keep every placeholder in square brackets, such as [name], "
    "exactly as it is. Reply with the new sentence only.")
#: (draft sentence, rewording): examples written for parley
EXAMPLES = (
    ("I have [count] hotels that fit.", "I found [count] hotels that match what you need."),
    ("Could you tell me the day and how many people?", "Which day would you like, and for how many people?"),
    ("May I ask how many people?", "For how many people would that be?"),
    ("May I ask where you're leaving from, the time and how many nights?",
     "Where are you leaving from, at what time, and for how many nights?"),
    ("[name] is a [pricerange] [food] restaurant in the [area].",
     "In the [area], [name] serves [food] food at [pricerange] prices."),
    ("Would you like me to book a room?", "Shall I reserve a room for you?"),
    ("Your table at [name] is booked for [people] people on [day].",
     "I've reserved a table at [name] for [people] people on [day]."),
    ("The reference number is [reference].", "Your booking reference is [reference]."),
    ("The phone number of [name] is [phone].", "You can call [name] on [phone]."),
    ("Sorry, there are no [food] restaurants in the [area].",
     "I'm afraid I couldn't find any [food] restaurants in the [area]."),
    ("If you drop the area, there are [count], e.g. [name].",
     "Without the area I have [count], e.g. [name]."),
    ("Is there anything else I can help with?", "Can I help you with anything else?"),
)
PLAIN_INSTRUCTION = ("You are a helpful clerk at the Cambridge tourist office. Say the draft answer to the "
                     "customer in your own friendly words. Keep names, numbers and times exactly. One or two "
                     "sentences.")
PLAIN_EXAMPLE = ("Customer: I need a hotel in the north.\nDraft: Acorn Guest House is a 4 star guesthouse in "
                 "the north. Shall I book it?",
                 "How about the Acorn Guest House? It's a lovely 4 star guesthouse in the north. Would you "
                 "like me to book it?")
_PH = re.compile(r"\[[a-z]+\d?\]")
#: words that start a refusal, never written (a clerk has no reason to apologise for a draft)
BANNED = ("sorry", "Sorry", " sorry", " Sorry", " unable", " AI")
#: the characters a clerk's words are made of between placeholders ("e.g." is the one dot inside a sentence)
_WORDS = "([a-zA-Z ,;:'()/&-] | \"e.g.\")*"


def sentence_grammar(sentence: str) -> str:
    """GBNF for a rewording of ``sentence``: its placeholders in order, words between, its kind of ending."""
    parts = [f'"{p}"' for p in _PH.findall(sentence)]
    end = '"?"' if sentence.rstrip().endswith("?") else '("." | "!")'
    return f"root ::= w {' w '.join([*parts, end])}\nw ::= {_WORDS}\n"


def messages(sentence: str) -> list[dict[str, str]]:
    """The chat: instruction, the example pairs, the sentence."""
    out = [{"role": "system", "content": INSTRUCTION}]
    for draft, reworded in EXAMPLES:
        out += [{"role": "user", "content": draft}, {"role": "assistant", "content": reworded}]
    return [*out, {"role": "user", "content": sentence}]


class CppBackend:
    """Rewords sentences with a GGUF model on llama.cpp (one shared server per model in the process)."""

    name = "llama.cpp"
    lexical = False  # free rewording: the rule check (llm_reword) judges the meaning, not shared words

    def __init__(self, gguf: Path, *, threads: int = 0, max_new_tokens: int = 40, prefix_cache: bool = True,
                 progress: Progress = None) -> None:
        self.server: LlamaServer = shared_server(gguf, threads, progress=progress)
        self.max_new_tokens = max_new_tokens
        self.prefix_cache = prefix_cache
        self.cached_tokens = 0

    @property
    def threads(self) -> int:
        return self.server.threads

    def _note(self, c: Completion) -> tuple[str, int, int]:
        self.cached_tokens += c.cached_tokens
        text = c.text.strip() if c.finish != "length" else ""  # cut off: the grammar's sentence is unfinished
        return text, c.prompt_tokens, c.new_tokens

    def budget(self, sentence: str) -> int:
        """New tokens allowed for a rewording of ``sentence``: about twice its length, at most
        ``max_new_tokens`` (a model that rambles is cut off early; its sentence falls back)."""
        return min(self.max_new_tokens, 2 * len(re.findall(r"\w+|[^\w\s]", sentence)) + 6)

    def reword(self, sentence: str) -> tuple[str, int, int]:
        """``(rewording, prompt tokens, new tokens)`` of one delexicalised sentence ("" when cut off)."""
        return self._note(self.server.chat(messages(sentence), max_tokens=self.budget(sentence),
                                           grammar=sentence_grammar(sentence), banned=BANNED,
                                           cache_prompt=self.prefix_cache))

    def plain(self, user: str, draft: str) -> tuple[str, int, int]:
        """``(reply, prompt tokens, new tokens)`` for a draft with its values (``delex=false``)."""
        chat = [{"role": "system", "content": PLAIN_INSTRUCTION},
                {"role": "user", "content": PLAIN_EXAMPLE[0]},
                {"role": "assistant", "content": PLAIN_EXAMPLE[1]},
                {"role": "user", "content": f"Customer: {user.strip()}\nDraft: {draft}"}]
        c = self.server.chat(chat, max_tokens=self.max_new_tokens, stop=["\n"],
                             cache_prompt=self.prefix_cache)
        self.cached_tokens += c.cached_tokens
        return c.text, c.prompt_tokens, c.new_tokens
