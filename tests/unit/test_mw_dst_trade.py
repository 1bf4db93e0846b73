"""JGA under TRADE's normalisation (``engine.systems.mw.dst_trade``) beside parley's own (``dst_eval``)."""

from __future__ import annotations

from parley.engine.mwdb import load_db
from parley.engine.systems.mw.dst_eval import DstScores, gold_state, name_mapper, normalise_state
from parley.engine.systems.mw.dst_trade import TradeScores, trade_gold, trade_pred, trade_text, trade_value


def meta(**domains: dict[str, str]) -> dict:
    return {d: {"semi": {k: v for k, v in slots.items() if not k.startswith("book_")},
                "book": {"booked": [], **{k[5:]: v for k, v in slots.items() if k.startswith("book_")}}}
            for d, slots in domains.items()}


def test_values_are_tokenised_and_label_slips_fixed_as_trade_did() -> None:
    assert trade_text("King's College") == "king s college"  # 's split off, then the quote dropped
    assert trade_text("A&B Guest-House") == "a&b guest house" and trade_text("b&b") == "bed and breakfast"
    assert trade_text("3.50 pounds") == "3.50 pounds" and trade_text("01223 350 068") == "01223350068"
    assert trade_value("hotel", "type", "guesthouse") == "guest house"
    assert trade_value("attraction", "type", "mutliple sports") == "multiple sports"
    assert trade_value("restaurant", "area", "center") == "centre"
    assert trade_value("hotel", "stars", "4 stars") == "4"
    assert trade_value("hotel", "internet", "free") == "yes"
    assert trade_value("hotel", "parking", "free") == "free"  # TRADE kept "free" for parking
    assert trade_value("train", "day", "don't care") == "dontcare"
    assert trade_value("hotel", "type", "bed and breakfast") is None  # a slip: no value of the slot
    assert trade_value("restaurant", "food", "not mentioned") is None


def test_only_the_five_domains_trade_evaluated_count() -> None:
    gold = meta(hotel={"area": "east", "book_stay": "2"}, hospital={"department": "cardiology"})
    assert trade_gold(gold) == {("hotel", "area", "east"), ("hotel", "book_stay", "2")}
    assert trade_pred({"hotel": {"area": "east", "book_stay": "2"}, "police": {"x": "y"}}) == trade_gold(gold)


def test_the_same_predictions_read_lower_under_trade() -> None:
    """Names and times are compared as written (no DB spelling, no HH:MM): parley's own JGA counts these."""
    names = name_mapper(load_db())
    cases = [({"restaurant": {"name": "the kohinoor"}}, meta(restaurant={"name": "kohinoor"})),
             ({"train": {"leaveAt": "05:45"}}, meta(train={"leaveAt": "5:45"})),
             ({"hotel": {"type": "guesthouse", "area": "centre"}}, meta(hotel={"type": "guest house",
                                                                               "area": "center"}))]
    own, trade = DstScores(), TradeScores()
    for pred, gold in cases:
        own.add(normalise_state(pred, names), gold_state(gold, names))
        trade.add(pred, gold)
    assert own.jga == 1.0 and trade.jga == 1 / 3 and trade.turns == 3
