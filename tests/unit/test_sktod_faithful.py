"""``sktod`` answers follow their evidence: scripted questions through ``parley chat --system sktod --script
--json`` over a review KB written for this test (mixed, negative and missing evidence) and over the embedded
KB. An answer never says "yes" over a negative majority, says when reviews disagree, never copies a reviewer's
words beyond an adjective (so no first-person or truncated quote), and the wording varies."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from parley.cli import main

pytestmark = pytest.mark.slow


def venue(name: str, reviews: list[list[str]]) -> dict[str, Any]:
    docs = {str(i): {"traveler_type": "Couples", "sentences": {str(j): s for j, s in enumerate(r)}}
            for i, r in enumerate(reviews)}
    return {"name": name, "faqs": {}, "reviews": docs}


#: team-written reviews; each question below names its venue, the aspect and what the reviews say about it
KB = {
    "hotel": {
        "0": venue("JUNIPER HOUSE", [
            ["We came for a long weekend.", "The wifi was fast and reliable everywhere in the building."],
            ["The internet was quick enough for video calls.", "Our room was spotless when we arrived."],
            ["The wifi never dropped once.", "The room was clean and smelled fresh."],
            ["Great wifi, I streamed films every night.",
             "Sadly the bathroom was dirty and the sheets were stained."],
            ["The room was not clean at all and the carpet was filthy.", "Breakfast was fine."],
            ["Housekeeping kept our room very clean.", "Parking was easy."],
        ]),
        "1": venue("LARCH LODGE", [
            ["The staff were rude to us at check-in.", "It was very quiet at night, we slept well."],
            ["Nobody at the desk was helpful when our key stopped working.",
             "The street is silent after dark."],
            ["The receptionist was friendly and gave us a map.", "A peaceful place with no noise at all."],
            ["I found the staff unhelpful and slow.", "The rooms were quiet."],
        ]),
    },
    "restaurant": {
        "2": venue("SAFFRON TABLE", [
            ["The food was delicious and fresh.", "Our waiter was lovely."],
            ["I felt the food was bland and i would also say the portions were tiny.", "Service was slow."],
            ["Tasty food, we will come back.", "The music was too loud."],
            ["The curry was cold and greasy.", "I think the prices were fair."],
        ]),
        "3": venue("QUINCE KITCHEN", [
            ["The food was great but the bill was far too expensive.", "We sat by the window."],
            ["Overpriced for what you get.", "The dessert was nice."],
            ["Prices were steep and the wine was overpriced.", "The room was pretty."],
        ]),
    },
}

#: (question, what most reviews say about it: "yes" / "no" / "mixed" / "none", do they disagree?)
QUESTIONS = [
    ("Is the wifi good at Juniper House?", "yes", False),
    ("Do guests find the rooms at Juniper House clean?", "yes", True),
    ("Are the staff at Larch Lodge helpful?", "no", True),
    ("Is Larch Lodge noisy at night?", "no", False),
    ("How is the breakfast at Larch Lodge?", "none", False),
    ("Is the food at Saffron Table any good?", "mixed", True),
    ("Is Quince Kitchen good value for money?", "no", False),
    ("Is the food at Quince Kitchen expensive?", "no", False),
    ("Are the cocktails at Saffron Table any good?", "none", False),
]
FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|my|we|we're|our|us|me)\b", re.I)


def chat(tmp_path: Path, knowledge: Path | None, questions: list[str]) -> list[dict[str, Any]]:
    script = tmp_path / "script.txt"
    script.write_text("\n".join(questions) + "\n", encoding="utf-8")
    system = f"sktod:knowledge={knowledge}" if knowledge else "sktod"
    r = CliRunner().invoke(main, ["chat", "--system", system, "--script", str(script), "--json",
                                  "--db", str(tmp_path / "s.db"), "--seed", "3"])
    assert r.exit_code == 0, r.output
    return [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]


def statements(answer: str) -> str:
    """The answer without its closing offer ("Would you like me to book …?")."""
    return " ".join(s for s in re.split(r"(?<=[.!?])\s+", answer) if not s.endswith("?"))


def copied(answer: str, sentences: list[str], n: int = 4) -> list[str]:
    """Runs of ``n`` words the answer shares with a review sentence (a quote, whole or cut)."""
    words = re.findall(r"[a-z']+", statements(answer).lower())
    grams = {" ".join(words[i:i + n]) for i in range(len(words) - n + 1)}
    out = []
    for s in sentences:
        sw = re.findall(r"[a-z']+", s.lower())
        out += [g for g in (" ".join(sw[i:i + n]) for i in range(len(sw) - n + 1)) if g in grams]
    return out


def check(answer: str, verdict: str, disagree: bool, reviews: list[str]) -> None:
    said = statements(answer)
    first = said.split(",")[0].split()[0].lower()
    if verdict in ("no", "mixed", "none"):
        assert first != "yes", answer
    if verdict == "yes":
        assert first in ("yes", "most", "the", "according", "guests") or "most" in said.lower(), answer
    if verdict == "no":  # the majority clause (before the minority's "though"/"but") praises nothing
        main = re.split(r",? (?:though|but|however)\b|\. however", said.lower())[0]
        assert not re.search(r"\b(?:liked|happy|praise\w*|good things)\b", main), answer
    if verdict == "none":
        assert re.search(r"\b(?:no|none|not|nothing|couldn't|don't)\b", said.lower()), answer
    if disagree or verdict == "mixed":
        assert re.search(r"\b(?:though|but|however|mixed|split|disagree\w*)\b", said.lower()), answer
    assert not FIRST_PERSON.search(said), answer
    assert not copied(answer, reviews), (answer, copied(answer, reviews))


def test_answers_follow_the_evidence_of_a_written_kb(tmp_path: Path) -> None:
    kb = tmp_path / "knowledge.json"
    kb.write_text(json.dumps(KB), encoding="utf-8")
    turns = chat(tmp_path, kb, [q for q, _, _ in QUESTIONS])
    reviews = [s for d in KB.values() for v in d.values() for r in v["reviews"].values()
               for s in r["sentences"].values()]
    assert len(turns) == len(QUESTIONS)
    for turn, (question, verdict, disagree) in zip(turns, QUESTIONS, strict=True):
        assert turn["internals"]["branch"] == "sktod", (question, turn["system"])
        check(turn["system"], verdict, disagree, reviews)


def bank_truth(sentence: str, bank: dict[str, tuple[str, ...]]) -> str | None:
    """"pos" / "neg" when an embedded-KB sentence was written from that side of the aspect's phrase bank
    (assets/sktod/phrases.py), else None: the KB's own labels, independent of the generator's sentiment."""
    s = sentence.lower()
    for side in ("pos", "neg"):
        preds = [re.sub(r"^(?:was|were|is|are) ", "", p.lower()) for p in bank[side]]
        if any(p in s for p in preds) or any(o.lower().rstrip(".") in s for o in bank["own_" + side]):
            return side
    return None


#: (question, venue, aspect of the phrase banks, does "yes" mean praise (+1) or complaint (-1)?)
EMBEDDED = [
    ("Is the Acorn Guest House quiet at night?", "acorn guest house", "noise", 1),
    ("Is the wifi good at the Acorn Guest House?", "acorn guest house", "wifi", 1),
    ("Is the wifi reliable at the Ashley Hotel?", "ashley hotel", "wifi", 1),
    ("Are the rooms at Cityroomz comfortable?", "cityroomz", "room", 1),
    ("Is Cityroomz clean?", "cityroomz", "cleanliness", 1),
    ("Is the Gonville Hotel good value for money?", "gonville hotel", "price", 1),
    ("Is the University Arms Hotel noisy?", "university arms hotel", "noise", -1),
    ("Are the staff at the Lensfield Hotel helpful?", "the lensfield hotel", "staff", 1),
    ("Is the food at Pizza Hut City Centre any good?", "pizza hut city centre", "food", 1),
    ("Is Yu Garden clean?", "yu garden", "cleanliness", 1),
    ("Are the drinks good at Nandos?", "nandos", "drinks", 1),
    ("Are the staff at Meze Bar friendly?", "meze bar", "staff", 1),
]


def test_answers_follow_the_evidence_of_the_embedded_kb(tmp_path: Path) -> None:
    import importlib.util

    from parley.assets import asset_path
    from parley.engine.sktod.knowledge import load_knowledge

    spec = importlib.util.spec_from_file_location("phrases", asset_path("sktod", "phrases.py"))
    assert spec is not None and spec.loader is not None
    phrases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(phrases)
    kb = load_knowledge()
    turns = chat(tmp_path, None, [q for q, *_ in EMBEDDED])
    answers = []
    for turn, (question, name, aspect, sense) in zip(turns, EMBEDDED, strict=True):
        ent = next(e for e in kb.entities() if e.name.lower() == name)
        bank = (phrases.HOTEL if ent.domain == "hotel" else phrases.RESTAURANT)[aspect]
        docs: dict[int, list[str]] = {}
        sentences = [s for s in kb.snippets(ent.domain, ent.entity_id) if s.doc_type == "review"]
        for s in sentences:
            side = bank_truth(s.text, bank)
            if side:
                docs.setdefault(s.doc_id, []).append(side)
        pos = sum(1 for v in docs.values() if v.count("pos") > v.count("neg"))
        neg = sum(1 for v in docs.values() if v.count("neg") > v.count("pos"))
        answer = turn["system"]
        answers.append(answer)
        assert turn["internals"]["branch"] == "sktod", (question, answer)
        assert pos + neg > 0, (question, "the embedded KB changed: pick another venue")
        # a tie among the bank's sentences may be broken by a review of another aspect that also praises
        # or blames this one ("good food without breaking the bank"): then only the disagreement is asked for
        verdict = "tie" if pos == neg else ("yes" if (pos > neg) == (sense > 0) else "no")
        check(answer, verdict, pos > 0 and neg > 0, [s.text for s in sentences])
    firsts = [" ".join(re.findall(r"[a-z']+", a.lower())[:4]) for a in answers]
    assert max(firsts.count(f) for f in firsts) <= len(answers) // 3, firsts  # the wording varies


#: team-written reviews for the asked-aspect tests: decor praised and prices blamed at one venue, only prices
#: at another; views praised in all-purpose words at one hotel, blamed at another
ASKED_KB = {
    "hotel": {
        "0": venue("HAWTHORN HALL", [
            ["The view from the top floor over the river was great.", "The beds were comfortable."],
            ["A good view of the hills from the breakfast room.", "Parking was easy."],
            ["Our view across the valley was great at sunset.", "The lift was slow."],
        ]),
        "1": venue("BRAMBLE COURT", [
            ["The view was bad, just a wall of bins.", "The shower was hot."],
            ["A poor view of the car park from every window.", "The staff were friendly."],
            ["Terrible view of a building site.", "Check-in was quick."],
        ]),
    },
    "restaurant": {
        "2": venue("COPPER LANTERN", [
            ["The decor is elegant with lots of old wood.", "The prices are steep."],
            ["A stylish interior with velvet chairs.", "It was expensive for two."],
            ["Overpriced for small plates.", "The decor felt elegant and calm."],
        ]),
        "3": venue("MOSS AND MORTAR", [
            ["The bill was expensive for two people.", "The waiter was friendly."],
            ["Prices are high, not worth the money.", "The chips were soggy."],
            ["Overpriced drinks.", "Dessert arrived quickly."],
        ]),
    },
}
PRICE_WORDS = re.compile(r"\b(?:expensive|overpriced|pricey|steep|cheap|affordable|prices?|cost\w*|value|"
                         r"money|bill)\b", re.I)


def adjectives(text: str) -> set[str]:
    from parley.engine.sktod.evidence import BAD, GOOD

    return {w for w in re.findall(r"[a-z]+", text.lower()) if w in GOOD | BAD}


def test_the_aspect_a_question_names_wins_over_a_value_cue(tmp_path: Path) -> None:
    kb = tmp_path / "knowledge.json"
    kb.write_text(json.dumps(ASKED_KB), encoding="utf-8")
    turns = chat(tmp_path, kb, ["Is the nice indoor decor at Copper Lantern worth it?",
                                "Is the nice indoor decor at Moss and Mortar worth it?"])
    decor, none = (statements(t["system"]) for t in turns)
    assert turns[0]["internals"]["knowledge"]["aspects"] == ["decor"], turns[0]["internals"]
    assert not PRICE_WORDS.search(decor), decor  # what the reviews say of the decor, not of the prices
    assert adjectives(decor) and adjectives(decor) <= {"elegant", "stylish", "calm"}, decor
    assert not PRICE_WORDS.search(none), none  # no review talks of the decor: the answer says so
    assert re.search(r"\b(?:no|none|not|nothing)\b", none.lower()), none


def test_view_answers_use_the_reviews_words_never_an_empty_pair(tmp_path: Path) -> None:
    kb = tmp_path / "knowledge.json"
    kb.write_text(json.dumps(ASKED_KB), encoding="utf-8")
    questions = ["Does Hawthorn Hall have a nice view?", "Is the view at Hawthorn Hall lovely?",
                 "How is the view at Hawthorn Hall?", "Is the view at Bramble Court nice?",
                 "What is the view like at Bramble Court?", "Do guests like the view at Bramble Court?"]
    said = {"HAWTHORN HALL": {"great", "good"}, "BRAMBLE COURT": {"bad", "poor", "terrible"}}
    for turn, question in zip(chat(tmp_path, kb, questions), questions, strict=True):
        answer = statements(turn["system"])
        venue_said = said["HAWTHORN HALL" if "Hawthorn" in question else "BRAMBLE COURT"]
        # adjectives come from the reviews of the view (not the user's "nice", not "comfortable" or "slow")
        assert adjectives(answer) and adjectives(answer) <= venue_said, (question, answer)
        # all-purpose words say the same thing: never two of them ("great and good", "bad and poor")
        assert len(adjectives(answer)) == 1, (question, answer)
