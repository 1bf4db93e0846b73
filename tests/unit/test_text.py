"""The shared text steps of parley.text: what each replaces, character for character."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from parley.text import alnum, fold, squash, tokens

# white space of every kind (str.split's and re's \s are the same 29 characters), letters, digits, marks
_TEXT = st.text(st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2003\u2028\u3000aZé'&-.,0İß") | st.characters())


@given(_TEXT)
def test_squash_is_split_join(text: str) -> None:
    assert squash(text) == " ".join(text.split()) == re.sub(r"\s+", " ", text).strip()


@given(_TEXT)
def test_fold_is_trim_lower_squash(text: str) -> None:
    assert fold(text) == re.sub(r"\s+", " ", text.strip().lower()) == " ".join(text.lower().split())


@given(_TEXT)
def test_tokens_and_alnum(text: str) -> None:
    assert tokens(text) == re.findall(r"[a-z0-9]+", text)
    assert alnum(text) == re.sub(r"[^a-z0-9]", "", text) == "".join(tokens(text))


def test_examples() -> None:
    assert squash("  a\u2003 b\n\tc ") == "a b c"
    assert fold(" Christ's  COLLEGE ") == "christ's college"
    assert tokens("christ's college, cb2 3bu") == ["christ", "s", "college", "cb2", "3bu"]
    assert alnum("christ's college") == alnum("christs  college") == "christscollege"


def test_modules_use_the_shared_steps() -> None:
    """The comparisons that are the same go through parley.text (no private copy left behind)."""
    from parley.engine.rewrite import metrics
    from parley.engine.scoring import venues
    from parley.engine.sktod import entities

    assert not hasattr(venues, "_squash") and venues.alnum is alnum
    assert not hasattr(entities, "_WORD") and entities.tokens is tokens
    assert not hasattr(metrics, "_SPACES") and metrics.squash is squash
