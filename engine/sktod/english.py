"""Small pieces of English for ``sktod``'s answers: venue names as a reader writes them, articles, lists,
counts."""

from __future__ import annotations

from collections.abc import Sequence


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ARTICLE_LAST = _words("hotel house lodge inn breakfast guesthouse belfry restaurant arms")
_SMALL = _words("and of the by du de la")
_COUNTABLE = frozenset(["view", "location", "room", "bathroom", "atmosphere", "selection", "menu", "patio",
                        "terrace", "garden", "bar", "lobby", "pool", "gym", "spa", "area", "shower", "bed"])


def a_noun(phrase: str) -> str:
    """"view" → "a view", "great view" → "a great view"; "views", "wifi", "clean rooms" stay as they are."""
    if phrase.split()[-1] not in _COUNTABLE:
        return phrase
    return f"{'an' if phrase[:1] in 'aeiou' else 'a'} {phrase}"


def with_article(words: str, noun: str) -> str:
    """"great view" → "a great view"; "fast wifi", "clean rooms" stay as they are."""
    return a_noun(f"{words} {noun}")


def display_name(raw: str) -> str:
    """The knowledge base's own spelling of a venue, with "the" before names that take it; a name written
    in one case only ("ACORN GUEST HOUSE") is written as a reader would ("the Acorn Guest House", "Pizza Hut
    City Centre", "Alpha-Milton Guest House", "Moss and Mortar")."""
    words = raw.split()
    if words and words[0].lower() == "the":
        words = words[1:]
    if raw.isupper() or raw.islower():
        words = ["-".join(p[:1].upper() + p[1:] for p in w.lower().split("-"))
                 if not (i and w.lower() in _SMALL) else w.lower() for i, w in enumerate(words)]
    out = " ".join(words)
    if raw.lower().startswith("the ") or (words and words[-1].lower() in _ARTICLE_LAST):
        out = "the " + out
    return out or "this place"


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def join(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def plural(phrase: str) -> bool:
    last = phrase.split()[-1]
    return (last.endswith("s") and not last.endswith("ss")) or last in ("staff", "people")


def count(n: int, noun: str = "guest") -> str:
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    many = "people" if noun == "person" else noun + "s"
    return f"{words[n] if n < len(words) else n} {noun if n == 1 else many}"

