"""Policy for the train and taxi domains (split from :mod:`policy` to keep modules short)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from parley.engine.mwdb import Row, text
from parley.engine.systems.mw.dst import Tracker
from parley.engine.systems.mw.nlu import NluResult
from parley.engine.types import DialogueAct

if TYPE_CHECKING:
    from parley.engine.systems.mw.policy import Policy

TRAIN_INFO = ("trainID", "price", "duration", "leaveAt", "arriveBy", "departure", "destination", "day")


def act(name: str, domain: str, slot: str | None = None, value: object = None) -> DialogueAct:
    """A dialogue act as the policy emits it (values as strings); shared with engine.systems.mw.policy."""
    return {"act": name, "domain": domain, "slot": slot, "value": None if value is None else str(value)}


def _request(acts: list[DialogueAct], sys_req: list[str], domain: str, missing: list[str]) -> None:
    """Ask for (at most two of) the missing slots; asking for a departure time also accepts an arrival
    time."""
    for s in missing[:2]:
        acts.append(act("request", domain, s))
        sys_req.append(s)
    if "leaveAt" in sys_req:
        sys_req.append("arriveBy")


def _best_train(rows: list[Row], cons: dict[str, str]) -> Row:
    arrive = cons.get("arriveBy")
    if arrive and arrive != "dontcare":
        return max(rows, key=lambda r: text(r, "arriveBy"))
    return min(rows, key=lambda r: text(r, "leaveAt"))


def train_turn(pol: Policy, tr: Tracker, nlu: NluResult, acts: list[DialogueAct], counts: dict[str, int],
               sys_req: list[str]) -> Row | None:
    d = "train"
    state = tr.state.get(d, {})
    cons = {s: v for s, v in state.items() if not s.startswith("book_")}
    for a, b in (("departure", "destination"), ("destination", "departure")):
        if cons.get(a) not in (None, "cambridge", "dontcare") and not cons.get(b):
            cons[b] = "cambridge"  # every train in the database runs to or from Cambridge
    rows = pol.search.query(d, cons)
    counts[d] = len(rows)
    rq = [s for s in tr.requested.get(d, []) if s in TRAIN_INFO or s == "reference"]
    if "choice" in tr.requested.get(d, []):  # "how many trains are there?"
        acts.append(act("inform", d, "choice", len(rows)))
    intents = set(nlu.intents)
    booking = bool(tr.wants_booking.get(d))
    if booking:  # "book it for 5 and give me the reference": the reference comes with the booking
        rq = [s for s in rq if s != "reference"]
    # train ids are not unique in the DB (336 run on two days or routes): the offered one is the one that fits
    offered = tr.offered.get(d)
    venue = next((r for r in rows if r["trainID"] == offered), None) or (
        pol.db.find(d, offered) if offered else None)
    if venue is not None and rows and venue not in rows:
        venue = None
        tr.offered.pop(d, None)
    if venue is not None and rows and intents & {"earlier", "later"} and not booking \
            and not tr.changed & {(d, s) for s in cons}:
        return _next_train(tr, venue, rows, "later" in intents, acts)
    missing = [s for s in ("departure", "destination", "day") if not cons.get(s)]
    if not cons.get("leaveAt") and not cons.get("arriveBy") \
            and not tr.flexible & {(d, "leaveAt"), (d, "arriveBy")}:
        missing.append("leaveAt")
    if rq and venue is not None and not booking:
        pol._answer(d, venue, rq, acts, tr)
        return venue
    if rq and venue is None and rows and cons.get("departure") and cons.get("destination"):
        # a question before every constraint is known: answer it for the best train so far
        venue = _best_train(rows, cons)
        tr.offered[d] = text(venue, "trainID")
        acts.append(act("offer", d, "trainID", venue["trainID"]))
        for s in ("leaveAt", "arriveBy"):
            acts.append(act("inform", d, s, venue[s]))
        pol._answer(d, venue, rq, acts, tr)
        return venue
    if venue is None and missing and not (len(rows) <= 3 and rows and len(missing) <= 1):
        if rows and len(missing) < 4 and (cons.get("departure") or cons.get("destination")):
            acts.append(act("inform", d, "choice", len(rows)))
        _request(acts, sys_req, d, missing)
        return None
    if not rows:
        acts.append(act("nooffer", d))
        for s in ("departure", "destination", "day", "leaveAt", "arriveBy"):
            if cons.get(s) and cons[s] != "dontcare":
                acts.append(act("inform", d, s, cons[s]))
        # relax the time: the closest train the other way
        loose = {k: v for k, v in cons.items() if k not in ("leaveAt", "arriveBy")}
        # the same day's trains only (one arriving after midnight arrives the next day)
        alt = [r for r in pol.search.query(d, loose) if text(r, "arriveBy") >= text(r, "leaveAt")]
        if alt:
            # nothing leaves after the time: the last train; nothing arrives by it: the first to arrive
            near = (max(alt, key=lambda r: text(r, "leaveAt")) if cons.get("leaveAt") else
                    min(alt, key=lambda r: text(r, "arriveBy")))
            tr.offered[d] = text(near, "trainID")
            acts.append(act("offer", d, "trainID", near["trainID"]))
            acts.append(act("inform", d, "leaveAt", near["leaveAt"]))
            acts.append(act("inform", d, "arriveBy", near["arriveBy"]))
            acts.append(act("request", d, "book"))
            return near
        acts.append(act("request", d, "constraints"))
        return None
    shown = True  # the user has heard of the train the turn is about
    if venue is None or "reqalts" in intents or (tr.changed & {(d, s) for s in cons}):
        venue = _best_train(rows, cons) if "reqalts" not in intents else pol._pick(tr, d, rows, avoid=True)
        tr.offered[d] = text(venue, "trainID")
        shown = False
        if not booking:
            if len(rows) > 1:
                acts.append(act("inform", d, "choice", len(rows)))
            acts.append(act("offer", d, "trainID", venue["trainID"]))
            for s in ("leaveAt", "arriveBy"):
                acts.append(act("inform", d, s, venue[s]))
            if rq:
                pol._answer(d, venue, rq, acts, tr)
                return venue
            acts.append(act("request", d, "book"))
            return venue
    if tr.wants_booking.get(d) or ("affirm" in intents and "book" in tr.sys_requested):
        tr.wants_booking[d] = True
        people = state.get("book_people")
        if not people:
            if not shown:  # the train to be booked is named before its tickets are asked about
                acts.append(act("offer", d, "trainID", venue["trainID"]))
                acts += [act("inform", d, s, venue[s]) for s in ("leaveAt", "arriveBy")]
            acts.append(act("request", d, "book_people"))
            sys_req.append("book_people")
            return venue
        pol._answer(d, venue, rq, acts, tr)
        pol._book(d, text(venue, "trainID"), tr, acts)
        acts.append(act("inform", d, "trainID", venue["trainID"]))
        acts.append(act("inform", d, "book_people", people))
        try:
            total = float(str(venue["price"]).split()[0]) * int(people)
            acts.append(act("inform", d, "price", f"{total:.2f} pounds"))
        except (ValueError, KeyError):
            pass
        return venue
    if rq:
        pol._answer(d, venue, rq, acts, tr)
    else:
        acts.append(act("reqmore", "general"))
    return venue


def _next_train(tr: Tracker, venue: Row, rows: list[Row], later: bool,
                acts: list[DialogueAct]) -> Row:
    """"Is there an earlier one?" / "anything later?": the train that fits leaving just before / after the
    one on the table; none: that one is the first / last that fits."""
    ordered = sorted(rows, key=lambda r: (text(r, "leaveAt"), text(r, "trainID")))
    if later:
        other = next((r for r in ordered if text(r, "leaveAt") > text(venue, "leaveAt")), None)
    else:
        other = next((r for r in reversed(ordered) if text(r, "leaveAt") < text(venue, "leaveAt")), None)
    if other is None:
        acts.append(act("nomore", "train", "later" if later else "earlier"))
        acts += [act("inform", "train", s, venue[s]) for s in ("trainID", "leaveAt", "arriveBy")]
        acts.append(act("request", "train", "book"))
        return venue
    tr.offered["train"] = text(other, "trainID")
    acts.append(act("offer", "train", "trainID", other["trainID"]))
    acts += [act("inform", "train", s, other[s]) for s in ("leaveAt", "arriveBy")]
    acts.append(act("request", "train", "book"))
    return other


def taxi_turn(pol: Policy, tr: Tracker, nlu: NluResult, acts: list[DialogueAct], counts: dict[str, int],
              sys_req: list[str]) -> Row | None:
    d = "taxi"
    state = tr.state.get(d, {})
    rq = tr.requested.get(d, [])
    if not tr.passive and (state.get("departure") or state.get("destination") or "taxi" in nlu.domains):
        _complete_trip(tr)
        state = tr.state.get(d, {})
    key = "|".join(str(state.get(s)) for s in ("departure", "destination", "leaveAt", "arriveBy"))
    # the taxi booked is the one talked about until the user changes its trip: questions are answered from it
    if pol.taxi and (pol.taxi.get("key") == key or not any(dom == d for dom, _ in tr.changed)):
        from parley.engine.systems.mw.records import answer_taxi, booking_of

        taxi = booking_of(tr, d)
        if rq and taxi is not None:
            answer_taxi(taxi, rq, acts)
        acts.append(act("reqmore", "general"))
        return None
    missing = [s for s in ("departure", "destination") if not state.get(s)]
    if not state.get("leaveAt") and not state.get("arriveBy") \
            and not tr.flexible & {(d, "leaveAt"), (d, "arriveBy")}:
        missing.append("leaveAt")
    if missing:
        _request(acts, sys_req, d, missing)
        return None
    from parley.engine.systems.mw.policy import taxi_booking

    pol.bookings += 1
    car, phone = taxi_booking(pol.seed, state, pol.db, pol.bookings)
    pol.taxi = {"key": key, "car": car, "phone": phone}
    tr.booked[d] = phone
    trip = {s: state[s] for s in ("departure", "destination", "leaveAt", "arriveBy") if state.get(s)}
    tr.bookings.append({"domain": d, "key": car, "reference": phone, "car": car, "phone": phone, **trip})
    counts[d] = 1
    acts.append(act("book", d, "car type", car))
    acts.append(act("inform", d, "phone", phone))
    for s in ("departure", "destination", "leaveAt", "arriveBy"):
        if state.get(s) and state[s] != "dontcare":
            acts.append(act("inform", d, s, state[s]))
    return None


def _complete_trip(tr: Tracker) -> None:
    """Fill what a taxi trip leaves implicit from the venues of the dialogue: the other end when exactly one
    other venue is on the table ("a taxi from the museum" after booking a hotel), and the arrival time when
    the trip goes to the restaurant booked ("to the restaurant for my reservation")."""
    taxi = tr.state.setdefault("taxi", {})
    venues: list[tuple[str, str]] = []
    for dom in ("restaurant", "hotel", "attraction"):
        name = tr.state.get(dom, {}).get("name") or tr.offered.get(dom)
        if name and name != "dontcare":
            venues.append((dom, name))
    for slot, other in (("departure", "destination"), ("destination", "departure")):
        if taxi.get(other) and not taxi.get(slot):
            rest = [n for _, n in venues if n != taxi[other]]
            if len(rest) == 1:
                taxi[slot] = rest[0]
    rest_name = tr.state.get("restaurant", {}).get("name")
    booked_time = tr.state.get("restaurant", {}).get("book_time")
    if rest_name and booked_time and taxi.get("destination") == rest_name and not (
            taxi.get("leaveAt") or taxi.get("arriveBy")):
        taxi["arriveBy"] = booked_time
