"""MultiWOZ Inform/Success/BLEU on hand-built dialogues whose verdicts are worked out by hand below.

Facts used (bundled MultiWOZ DB, MIT): the cheap chinese restaurants in the centre are charlie chan, rice
house and golden house; there are 17 chinese restaurants in all; TR9842 runs cambridge → ely on friday at
21:50.
"""

from __future__ import annotations

import pytest

from parley.engine.scoring.multiwoz import (
    Delexicaliser,
    DialogueScore,
    EvalTurn,
    aggregate,
    bleu_normalise,
    canonical_value,
    corpus_bleu,
    estimate_active_domains,
    goal_requestables,
    score_dialogue,
)

CHEAP_CHINESE_CENTRE = {"food": "chinese", "area": "centre", "pricerange": "cheap"}
R_GOAL = {"restaurant": {"info": dict(CHEAP_CHINESE_CENTRE), "reqt": ["phone"],
                         "book": {"people": "2", "day": "friday", "time": "18:00"}}}
R = ("restaurant",)


def test_requestables_follow_mwzeval() -> None:
    assert goal_requestables(R_GOAL, "restaurant") == {"phone", "reference"}
    g = {"train": {"info": {}, "reqt": ["trainID", "duration", "price"]}}
    assert goal_requestables(g, "train") == {"trainid"}
    assert goal_requestables({"taxi": {"info": {}, "reqt": ["car type", "phone"]}}, "taxi") == {"phone"}


def test_delexicaliser_finds_every_kind() -> None:
    dx = Delexicaliser()
    assert dx.mentions("Try Charlie Chan, it is cheap.") == {"name"}
    assert dx.mentions("Call them on 01223 361763 or write to CB2 1DB.") == {"phone", "postcode"}
    assert dx.mentions("They are at Regent Street City Centre .") == {"address"}
    assert dx.mentions("TR9842 leaves at 21:50.") == {"trainid"}
    assert dx.mentions("Booked! Your reference number is ABCDWXYZ.") == {"reference"}
    assert dx.mentions("Booked, reference 7GH2KQ9P") == {"reference"}
    # eight capitals without a digit and without a booking context are not a reference
    assert dx.mentions("WONDERFUL choice, anything else?") == frozenset()
    # the corpus tokenisation of a possessive still finds the venue
    assert "name" in dx.mentions("kettle 's yard is lovely")
    assert dx.delexicalise("Rice House is on 88 Mill Road City Centre, phone 01223367755.") == (
        "[name] is on [address], phone [phone] .")


def test_inform_and_success_when_everything_is_given() -> None:
    state = {"restaurant": dict(CHEAP_CHINESE_CENTRE)}
    turns = [
        EvalTurn("There are 3 cheap chinese places in the centre.", state, R),
        EvalTurn("Charlie Chan is a good one.", state, R),          # offers: DB(state) = the 3 goal venues
        EvalTurn("Their phone is 01223361763.", state, R),           # phone
        EvalTurn("Done, reference number is QWERTY12.", state, R),   # reference, after the corpus booked
    ]
    s = score_dialogue(R_GOAL, turns, booked=[(), (), (), ("restaurant",)])
    assert s.inform and s.success
    assert s.domains["restaurant"]["offered"] == 3
    assert s.domains["restaurant"]["provided"] == ["phone", "reference"]


def test_underspecified_state_fails_inform() -> None:
    # the state knows only food=chinese: the 17 chinese venues are not a subset of the 3 goal venues
    state = {"restaurant": {"food": "chinese"}}
    turns = [EvalTurn("Charlie Chan serves chinese food, phone 01223361763.", state, R)]
    s = score_dialogue(R_GOAL, turns)
    assert s.domains["restaurant"]["offered"] == 17
    assert not s.inform and not s.success


def test_name_in_another_domain_offers_nothing() -> None:
    state = {"restaurant": dict(CHEAP_CHINESE_CENTRE)}
    s = score_dialogue(R_GOAL, [EvalTurn("Charlie Chan is a good one.", state, ("hotel",))])
    assert s.domains["restaurant"]["offered"] == 0
    assert not s.inform


def test_reference_before_the_corpus_booked_does_not_count() -> None:
    state = {"restaurant": dict(CHEAP_CHINESE_CENTRE)}
    turns = [EvalTurn("Rice House, phone 01223367755, reference number is QWERTY12.", state, R),
             EvalTurn("Anything else?", state, R)]
    early = score_dialogue(R_GOAL, turns, booked=[(), ("restaurant",)])
    assert early.inform and not early.success
    assert early.domains["restaurant"]["provided"] == ["phone"]
    # without corpus bookings (live sessions) the reference counts
    assert score_dialogue(R_GOAL, turns).success


def test_named_goal_taxi_and_train_special_cases() -> None:
    named = {"hotel": {"info": {"name": "acorn guest house"}, "reqt": []}}
    assert score_dialogue(named, [EvalTurn("Hello.", {}, ())]).inform          # name in goal: matched
    taxi = {"taxi": {"info": {"leaveAt": "17:00"}, "reqt": ["car type", "phone"]}}
    s = score_dialogue(taxi, [EvalTurn("A red car is booked.", {"taxi": {"leaveAt": "17:00"}}, ("taxi",))])
    assert s.inform and not s.success                                             # phone never given
    s = score_dialogue(taxi, [EvalTurn("Booked, contact 07700900123.", {}, ("taxi",))])
    assert s.success
    train = {"train": {"info": {"departure": "cambridge", "destination": "ely", "day": "friday",
                                "leaveAt": "21:00"}, "reqt": ["price"]}}
    assert score_dialogue(train, [EvalTurn("When do you want to travel?", {}, ("train",))]).inform
    wrong = {"train": {"departure": "cambridge", "destination": "ely", "day": "monday"}}
    assert not score_dialogue(train, [EvalTurn("TR9842 it is.", wrong, ("train",))]).inform
    right = {"train": {"departure": "cambridge", "destination": "ely", "day": "friday", "leaveAt": "21:00"}}
    assert score_dialogue(train, [EvalTurn("TR9842 it is.", right, ("train",))]).inform


def test_a_later_narrower_offer_replaces_the_earlier_one_only_when_needed() -> None:
    wide = {"restaurant": {"food": "chinese"}}
    narrow = {"restaurant": dict(CHEAP_CHINESE_CENTRE)}
    turns = [EvalTurn("Charlie Chan?", wide, R), EvalTurn("Golden House then.", narrow, R)]
    # the narrow results do not contain every earlier venue, so they replace them: inform holds
    assert score_dialogue(R_GOAL, turns).inform
    # the other way round: the wide results contain all earlier ones, so the narrow offer stays
    assert score_dialogue(R_GOAL, list(reversed(turns))).inform


def test_active_domain_estimate() -> None:
    states = [{}, {"hotel": {"area": "north"}}, {"hotel": {"area": "north"}},
              {"hotel": {"area": "north"}, "train": {"day": "friday", "destination": "ely"}}]
    assert estimate_active_domains(states) == [(), ("hotel",), ("hotel",), ("train",)]
    s = score_dialogue(R_GOAL, [EvalTurn("Charlie Chan.", {"restaurant": dict(CHEAP_CHINESE_CENTRE)})])
    assert s.inform  # active domain estimated from the state change


def test_canonical_values_are_db_spellings() -> None:
    from parley.engine.mwdb import load_db

    db = load_db()
    assert canonical_value("attraction", "type", "night club", db) == "nightclub"
    assert canonical_value("attraction", "name", "kettles yard", db) == "kettle's yard"
    assert canonical_value("hotel", "parking", "free", db) == "yes"
    assert canonical_value("restaurant", "food", "klingon", db) == "klingon"


def test_bleu_equals_sacrebleu() -> None:
    import sacrebleu

    hyps = ["the train leaves at 10:00 .", "i booked a table for two", "goodbye"]
    refs = ["the train departs at 10:00 .", "i have booked a table for 2 people", "goodbye !"]
    expected = sacrebleu.corpus_bleu(hyps, [refs]).score
    assert corpus_bleu(hyps, refs, normalise=False) == pytest.approx(expected)
    raw = ["Kettle's Yard is free.", "Don't worry!"]
    ref = ["kettle 's yard is free .", "do n't worry !"]
    assert bleu_normalise(raw[0]) == ref[0] and bleu_normalise(raw[1]) == ref[1]
    assert corpus_bleu(raw, ref) == pytest.approx(100.0)
    with pytest.raises(ValueError):
        corpus_bleu(["a"], [])


def test_aggregate_combined() -> None:
    scores = [DialogueScore(True, True, {}), DialogueScore(True, False, {}), DialogueScore(False, False, {}),
              DialogueScore(True, False, {})]
    m = aggregate(scores, ["a b c d"], ["a b c d"])
    assert (m.inform, m.success, m.n) == (75.0, 25.0, 4)
    assert m.bleu == pytest.approx(100.0)
    assert m.combined == pytest.approx((75 + 25) / 2 + 100)
    assert aggregate(scores).bleu is None and aggregate(scores).combined is None
