"""The question that closes a ``sktod`` answer ("Would you like me to book a room there?"): never a booking
after complaints, nor right after the system reported one."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from parley.engine.sktod.english import display_name
from parley.engine.sktod.evidence import Stance
from parley.engine.sktod.style import Style, draw

FOLLOW = {
    "more": "Would you like to know more about {name}?",
    "else": "Is there anything else you would like to know?",
    "book": "Would you like me to book {what} there?",
    "reserve": "Would you like to make a reservation?",
    "book_it": "Would you like to book {what}?",
    "other": "Would you like me to look for another {domain}?",
    "them": "Would you like to know more about them?",
}


#: a system turn that reports a booking made ("… booked. Your reference number is …")
_BOOKED = re.compile(r"\b(?:booked|reserved|reference (?:number|no|code)|confirmation (?:number|code))\b",
                     re.I)


def booked(turns: Sequence[str]) -> bool:
    """Whether the system's last turn (``turns`` alternate user/system, the last one the user's) reports a
    booking made: then the answer does not offer another."""
    return len(turns) >= 2 and bool(_BOOKED.search(turns[-2]))


def follow_up(stances: Sequence[Stance], rng: random.Random, style: Style,
              after_booking: bool = False) -> str:
    st = stances[0]
    what = "a room" if st.domain == "hotel" else "a table"
    allowed: tuple[str, ...] = ("more", "else", "book", "reserve", "book_it")
    if len(stances) > 1:
        allowed = ("else", "reserve", "them")
    key = draw(rng, style, "follow", allowed)
    if len(stances) == 1 and st.verdict == "negative" and key in ("book", "reserve", "book_it"):
        key = "other"  # no booking offer after complaints
    if after_booking and key in ("book", "reserve", "book_it", "other"):
        key = "more" if len(stances) == 1 else "them"  # nor right after a booking was made
    return FOLLOW[key].format(name=display_name(st.name), what=what, domain=st.domain)
