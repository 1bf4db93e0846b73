"""``sktod`` reads each review the way a reader would before counting it: a complaint about the food in the
same sentence as praise of the waiters is not held against the service, "lackluster" and "bland" complain, "a
good 20 minutes" praises nothing, "I wish it wasn't so far" says it is far, and the prices of the food say
nothing of the prices of the beer. Scripted questions through ``parley chat --system sktod --script --json``
over a review KB written for this test; each venue's reviews, read by a person, lean one way, and the answer
must too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.unit.test_sktod_faithful import chat, statements, venue

pytestmark = pytest.mark.slow

#: team-written reviews, by domain and venue
REVIEWS = {
    "hotel": {
        "WILLOW LODGE": [
            ["I only wish the hotel wasn't so far from the centre.", "The beds were soft."],
            ["The location is far from everything.", "Breakfast was fine."],
            ["Great location by the river.", "The lift was slow."],
        ],
    },
    "restaurant": {
        "PEBBLE AND PINE": [
            ["The service was lackluster all night.", "The soup was hot."],
            ["The waiter came over after a good 20 minutes.", "Service felt lackluster."],
            ["Our server was friendly.", "The bread was fresh."],
        ],
        "SLATE KITCHEN": [
            ["The waiters were great, which is a pity since the food was awful."],
            ["Service was attentive.", "We sat by the door."],
            ["The staff were rude.", "The chairs were hard."],
        ],
        "HOLLY TAVERN": [
            ["The beer was overpriced.", "Food prices were very affordable and the portions were huge."],
            ["The beer was expensive for a pint."],
            ["Cheap beer on Mondays, served in a large glass."],
        ],
        "FLINT ROOM": [
            ["The decor was bland.", "The pasta was good."],
            ["Bland decor, but the food made up for it."],
            ["Lovely decor.", "We waited a while."],
        ],
    },
}

KB = {domain: {str(i): venue(name, reviews) for i, (name, reviews) in enumerate(venues.items(), start=n)}
      for n, (domain, venues) in zip((0, 1), REVIEWS.items(), strict=True)}

#: (question, how the answer must open: the side most reviews take, never the other side)
QUESTIONS = [
    ("Is the service good at Pebble and Pine?", ("no", "unfortunately")),
    ("Are the waiters at Slate Kitchen good?", ("yes",)),
    ("Is the beer at Holly Tavern good value?", ("no", "unfortunately")),
    ("Is Willow Lodge in a good location?", ("no", "unfortunately")),
    ("Is the decor nice at Flint Room?", ("no", "unfortunately")),
]
PRAISE = re.compile(r"\b(?:friendly|great|good|attentive|cheap|affordable|lovely)\b")


def test_reviews_are_read_as_a_reader_reads_them(tmp_path: Path) -> None:
    kb = tmp_path / "knowledge.json"
    kb.write_text(json.dumps(KB), encoding="utf-8")
    turns = chat(tmp_path, kb, [q for q, _ in QUESTIONS] + ["Has the area around Willow Lodge been popular?"])
    for turn, (question, opens) in zip(turns[:-1], QUESTIONS, strict=True):
        answer = statements(turn["system"])
        evidence = turn["internals"]["knowledge"]["evidence"][0]
        assert answer.lower().startswith(opens), (question, answer, evidence)
        if opens != ("yes",):  # most reviews complain: the answer says so before any praise
            assert evidence["verdict"] == "negative", (question, evidence)
            main = re.split(r",? (?:though|but|however)\b|\. (?:however|only)\b", answer.lower())[0]
            assert not PRAISE.search(main), (question, answer)
    area = turns[-1]["system"]
    assert not re.search(r"\bhas (?:an? )?(?:location|area)\b", area), area  # it asks how, not whether


def test_a_question_about_the_choice_is_not_about_size(tmp_path: Path) -> None:
    kb = tmp_path / "knowledge.json"
    kb.write_text(json.dumps(KB), encoding="utf-8")
    turns = chat(tmp_path, kb, ["Does Holly Tavern have a large selection of beers?"])
    answer = statements(turns[0]["system"])
    assert turns[0]["internals"]["knowledge"]["aspects"] != ["size"], turns[0]["internals"]["knowledge"]
    assert not re.search(r"\b(?:large|big|huge|small|tiny) beers?\b|\bbeers? [^.,]*\b(?:is|are|was|were) "
                         r"(?:large|big|huge|small|tiny)\b", answer), answer
