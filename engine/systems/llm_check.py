"""The check an ``llm`` reply must pass before it is shown instead of the template draft (see
engine.systems.llm).

Pure functions over strings and act dicts: which act values a reply must keep, which it dropped, and why a
reply is refused (refusals, invented numbers, questions the policy did not decide, ...).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from parley.text import fold as _norm

#: words of the prompt's example that must not leak into a reply
EXAMPLE_WORDS = ("acorn",)
#: act slots whose values must survive verbalisation
REQUIRED_SLOTS = frozenset({"name", "phone", "ref", "reference", "trainid", "id", "postcode", "leaveat",
                            "arriveby", "time", "book_time", "car"})
STRICT_SKIP = frozenset({"yes", "no", "true", "false", "dontcare", "free", "none"})
TIME_SLOTS = frozenset({"leaveat", "arriveby", "time", "book_time"})
#: slots whose act value may be a list ("east, north, south": examples when a constraint is dropped)
LIST_SLOTS = frozenset({"area", "pricerange", "food", "stars", "type"})
REFUSALS = re.compile(r"\b(i'm not sure|i'm sorry for (the|any) (confusion|misunderstanding)|as an? (ai|"
                      r"language model|text-based)|i'?m (not able|unable) to|i (can ?not|can't) (help|assist|"
                      r"provide))\b",
                      re.I)




def _time_forms(value: str) -> list[str]:
    m = re.fullmatch(r"(\d{1,2}):(\d{2})", value.strip())
    if not m:
        return [value]
    h, mm = int(m.group(1)), m.group(2)
    forms = {f"{h:02d}:{mm}", f"{h}:{mm}"}
    if h > 12:
        forms.add(f"{h - 12}:{mm}")
    return sorted(forms)


def required_values(acts: tuple[Mapping[str, object], ...], strict: bool = False) -> list[tuple[str, str]]:
    """``(slot, value)`` pairs of the acts that a verbalisation must keep (not those of request acts).

    By default names, phones, references, train ids, postcodes and times; ``strict`` adds every other value
    (food, area, price range, address, ...) except yes/no flags."""
    out: list[tuple[str, str]] = []
    for a in acts:
        slot = str(a.get("slot") or "").lower()
        value = a.get("value")
        if value in (None, "", "?", "none") or str(a.get("act", "")) == "request":
            continue
        if slot in REQUIRED_SLOTS or (strict and str(value).lower() not in STRICT_SKIP):
            pair = (slot, str(value))
            if pair not in out:
                out.append(pair)
    return out


def missing_values(text: str, required: list[tuple[str, str]]) -> list[str]:
    """Required values not found in ``text`` (case-blind; phones ignoring spaces; times in 24h or 12h
    form; each item of a list value, in any order)."""
    low = _norm(text)
    digits = re.sub(r"[\s-]", "", low)
    missing = []
    for slot, value in required:
        v = _norm(value)
        if slot == "phone":
            ok = re.sub(r"[\s-]", "", v) in digits
        elif slot in TIME_SLOTS:
            ok = any(f in low for f in _time_forms(v))
        elif slot == "name":
            ok = v in low or v.removeprefix("the ") in low
        elif slot in LIST_SLOTS and ", " in v:  # the values of a relaxed slot, said "east, north and south"
            ok = all(x in low for x in v.split(", "))
        else:
            ok = v in low
        if not ok:
            missing.append(value)
    return missing


def check_reply(reply: str, draft: str, required: list[tuple[str, str]], user: str = "") -> str | None:
    """Why ``reply`` may not be shown instead of ``draft`` (``None`` when it is fine)."""
    if not reply.strip():
        return "empty output"
    if REFUSALS.search(reply):
        return "the model refused or talked about itself"
    missing = missing_values(reply, required)
    if missing:
        return "dropped required values: " + ", ".join(missing)
    known = set(re.findall(r"\d+", draft.lower() + " " + user.lower()))
    invented = [n for n in re.findall(r"\d+", reply.lower()) if n not in known]
    if invented:
        return "invented numbers: " + ", ".join(invented[:3])
    low = reply.lower()
    if any(w in low and w not in draft.lower() for w in EXAMPLE_WORDS):
        return "copied the prompt example"
    return shape_reason(reply, draft, questions=draft.count("?"))


def shape_reason(reply: str, draft: str, *, questions: int) -> str | None:
    """The checks both reply checks share: no more than ``questions`` question marks, the draft's question
    kept, not much longer than the draft."""
    if reply.count("?") > questions:
        return "asked a question the policy did not decide"
    if "?" in draft and "?" not in reply:
        return "dropped the question"
    if len(reply) > 2 * len(draft) + 80:
        return "too long"
    return None


def tidy(raw: str) -> str:
    """First line, quotes stripped, cut back to the last full sentence when generation stopped
    mid-sentence."""
    text = raw.strip().split("\n", 1)[0].strip().strip('"').strip()
    text = re.sub(r"^(assistant|clerk|answer|reply)\s*:\s*", "", text, flags=re.I)
    if text and text[-1] not in ".!?":
        cut = max(text.rfind(". "), text.rfind("? "), text.rfind("! "))
        text = text[:cut + 1] if cut > 0 else text
    return text
