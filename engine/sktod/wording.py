"""Answers written from what the reviews say (:class:`engine.sktod.evidence.Stance`), in parley's own words.

The answer follows the count of reviews: "yes" only when most reviews are positive about what was asked ("is
it quiet?"), "no" when most are negative; a question about a fault ("is it noisy?") is answered the other way
round, never with a "yes" over complaints. When reviews disagree the answer says so ("most guests …, but one
guest said it was slow"; "opinions are mixed"). Reviewers' words appear only as their adjectives ("fast and
reliable"). Several frames say the same thing; each answer draws its frame, its words for the reviewers and
its follow-up question per question, with the weights of :mod:`engine.sktod.style`. What the question asks is
read by :mod:`engine.sktod.question`; the closing question comes from :mod:`engine.sktod.closing`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from parley.engine.sktod.english import a_noun, cap, count, display_name, join, plural, with_article
from parley.engine.sktod.evidence import BAD, GOOD, Stance, distinct
from parley.engine.sktod.question import Ask, noun_phrase
from parley.engine.sktod.style import Style, draw


def unmentioned(q: Ask, stances: Sequence[Stance]) -> str:
    """That nothing known of these venues talks about what was asked, in the user's words ("the music")."""
    names = [display_name(st.name) for st in stances]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    what = noun_phrase(q.text, q.aspects, of_place=False)
    return f"None of the reviews or facts about {listed} mention {what}."


def kind(q: Ask, stances: Sequence[Stance]) -> str:
    """The kind of answer, for per-kind style weights: question form + what the first venue's reviews say."""
    st = stances[0] if stances else Stance("", "")
    v = st.verdict
    said = "faq" if st.faq else ("all" if st.unanimous else "most") if v == "positive" else v
    form = ("yn" if q.yes_no else "open") + ("-ex" if q.exists else "")
    return f"{form}-{said}{'-multi' if len(stances) > 1 else ''}"


def opening(q: Ask, st: Stance) -> str:
    """"Yes, " / "No, " / "Unfortunately, " / "" — never a yes over a negative majority."""
    if not q.yes_no or q.compare or st.verdict not in ("positive", "negative"):
        return ""
    good = st.verdict == "positive"
    if q.sense >= 0:
        return "Yes, " if good else "No, "
    return "No, " if good else "Unfortunately, "


@dataclass(frozen=True)
class Parts:
    """The pieces every frame is built from."""

    name: str
    subject: str  # "the wifi at the Acorn Guest House"
    noun: str  # "wifi"
    be: str
    was: str
    pron: str  # "it" / "them"
    they: str  # "it" / "they"
    who: str
    say: str
    that: str
    phrase: str = "it"
    hotel: bool = True


def parts(q: Ask, st: Stance, rng: random.Random, style: Style) -> Parts:
    name = display_name(st.name)
    phrase = q.phrase
    subject = f"{phrase} at {name}" if phrase != "it" else name
    many = phrase != "it" and plural(phrase)
    past = draw(rng, style, "tense") == "past"
    say = draw(rng, style, "say")
    return Parts(name, subject, phrase.removeprefix("the "), "are" if many else "is",
                 ("were" if many else "was") if past else ("are" if many else "is"), "them" if many else "it",
                 "they" if many else "it", draw(rng, style, "who"), say, draw(rng, style, "that"), phrase,
                 st.domain == "hotel")


_PREDICATIVE = ("plain", "say", "according", "described", "past", "reviews_say", "stayed", "possessive",
                "describe", "majority", "reviews_of")


def body(frame: str, p: Parts, desc: str, most: bool) -> str:
    """The main clause of a positive or negative majority, in one of the frames."""
    m = "most " if most else ""
    by_most = ", according to most guests" if most else ""
    return {
        "plain": f"{p.subject} {p.was} {desc}{by_most}",
        "say": f"{m}{p.who} {p.say} {p.that}{p.subject} {p.was} {desc}",
        "according": f"according to {'most of ' if most else ''}the reviews, {p.subject} {p.be} {desc}",
        "described": f"{p.subject} {'has' if p.be == 'is' else 'have'} {'mostly ' if most else ''}been "
                     f"described as {desc}",
        "has": f"{p.name} has {with_article(desc, p.noun)}{by_most}",
        "offers": f"{p.name} offers {with_article(desc, p.noun)}{by_most}",
        "past": f"{m}past guests of {p.name} described {p.phrase} as {desc}",
        "reviews_say": f"{'most of ' if most else ''}the reviews say that {p.subject} {p.be} {desc}",
        "stayed": f"{m}{p.who} who {'stayed' if p.hotel else 'ate'} at {p.name} {p.say} {p.that}{p.phrase} "
                  f"{p.was} {desc}",
        "possessive": f"{p.name}'s {p.noun} {p.be} {desc}{', according to most guests' if most else ''}",
        "describe": f"{m}reviewers describe {p.subject} as {desc}",
        "majority": f"{'the majority of' if most else 'all of the'} {p.who} {p.say} {p.that}{p.subject} "
                    f"{p.was} {desc}",
        "reviews_of": f"according to {'most of ' if most else ''}the reviews of {p.name}, {p.phrase} {p.be} "
                      f"{desc}",
    }[frame]


def sentence(q: Ask, st: Stance, rng: random.Random, style: Style, first: bool = True) -> str:
    """One or two sentences about one venue."""
    v = st.verdict
    if v == "none":
        name = display_name(st.name)
        bare = name.removeprefix("the ")
        faq = re.sub(re.escape(bare), bare, st.faq, flags=re.I)  # "EFES RESTAURANT does …" reads as a name
        return f"{cap(name)}: {faq}" if faq and bare not in faq else faq
    p = parts(q, st, rng, style)
    if v == "neutral":
        if q.exists:
            return f"Yes, {p.who} mention {p.subject}."
        return cap(f"{p.who} mention {p.subject}, but without saying whether {p.they} {p.be} good or bad.")
    if v == "split":
        return split(st, p)
    words = list(st.praise if v == "positive" else st.complaints)
    side = GOOD if v == "positive" else BAD
    if q.adjective in side:  # the user's word first when the reviews use it too; never a word of the user's
        words.sort(key=lambda w: w.split()[-1] != q.adjective)
    words = distinct(words)[: int(style.get("adjectives", 2))]
    most = not st.unanimous
    lead = opening(q, st) if first else ""
    if q.exists and p.noun != "it" and first:
        if v == "negative":
            lead = f"{cap(p.name)} {q.exists} {a_noun(p.noun)}, but "
        else:
            text = f"{lead}{p.name if lead else cap(p.name)} {q.exists} {a_noun(p.noun)}"
            if words:
                m = "most " if most else ""
                text += f", and {m}{p.who} {p.say} {p.that}{p.they} {p.was} {join(words)}"
            return text + (minority(st, p, rng, style) if most else "") + "."
    if words:
        prenominal = not any(w.startswith("not ") for w in words) and p.noun != "it"
        frame = draw(rng, style, "frame", None if prenominal else _PREDICATIVE)
        if p.noun == "it" and frame in ("past", "stayed", "possessive"):
            frame = "plain"
        text = body(frame, p, join(words), most)
    else:
        liked = v == "positive"
        m = "most " if most else ""
        text = (f"{m}{p.who} {p.say} good things about {p.subject}" if liked
                else f"{m}{p.who} {'complained' if p.say != 'say' else 'complain'} about {p.subject}")
    text = (lead + text) if lead else cap(text)
    if most:
        text += minority(st, p, rng, style)
    return text + "."


def split(st: Stance, p: Parts) -> str:
    good, bad = st.praise[:1], st.complaints[:1]
    some = (f"{count(st.positive)} found {p.pron} {good[0]}" if good
            else f"{count(st.positive)} liked {p.pron}")
    other = f"{count(st.negative)} found {p.pron} {bad[0]}" if bad else f"{count(st.negative)} did not"
    return cap(f"opinions on {p.subject} are mixed: {some}, but {other}.")


def minority(st: Stance, p: Parts, rng: random.Random, style: Style) -> str:
    """The other side of a majority: ", though one guest found it slow"."""
    n = st.minority
    other = (st.complaints if st.verdict == "positive" else st.praise)[:1]
    who = count(n)
    if other:
        said = {"though": f", though {who} found {p.pron} {other[0]}",
                "but": f", but {who} said {p.they} {p.was} {other[0]}",
                "however": f". However, {who} found {p.pron} {other[0]}",
                "person": f", but {count(n, 'person')} said {p.they} {p.was} {other[0]}",
                "only": f". Only {count(n, 'person')} found {p.pron} {other[0]}"}
    elif st.verdict == "positive":
        said = {"though": f", though {who} {'was' if n == 1 else 'were'} less impressed",
                "but": f", but {who} did not like {p.pron}", "however": f". However, {who} disagreed",
                "person": f", but {count(n, 'person')} did not like {p.pron}",
                "only": f". Only {count(n, 'person')} did not like {p.pron}"}
    else:
        said = {"though": f", though {who} {'was' if n == 1 else 'were'} happy with {p.pron}",
                "but": f", but {who} liked {p.pron}", "however": f". However, {who} disagreed",
                "person": f", but {count(n, 'person')} liked {p.pron}",
                "only": f". Only {count(n, 'person')} liked {p.pron}"}
    return said[draw(rng, style, "minor")]

