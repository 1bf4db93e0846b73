"""The fact audit: is every fact a reply states true of the MultiWOZ databases and of the dialogue so far?

It reads the reply's *text* — what the user sees — sentence by sentence (:mod:`claims`), works out what each
sentence is about (a venue or train it names; else the subject of the sentence before; else what the user
asked about, "the guesthouse", "the first one", "the taxi", resolved against what earlier replies said
(:mod:`factmemory`); else the venue last named) and checks (:mod:`factcheck`):

- names, phones, postcodes, addresses, areas, price ranges, stars, food, types, entrance fees, opening
  hours, room prices, train ids, times, journey times and prices against the subject's database row;
- counts ("I have 5 trains that fit", "there are no cheap guesthouses in the north") against the rows that
  meet every constraint in force — the turn's belief state, the system's own extra filters
  (``internals.filters``, e.g. a free entrance) and a free entrance the user asks for in the turn — with the
  audit's own matching (:mod:`factdb`: arrive-by and leave-at included, no train across midnight);
- references: a new one must come with a booking the turn really made (its ``book`` act, when acts are
  given) and never repeat an earlier one; a reference given again must be the one of the booking the user
  asks about (or, unnamed, of the latest booking); the taxi's car and number likewise;
- bookings: a booking made when the user only asked a question ("what's the phone number of the hotel?")
  is a wrong fact (it says "booked" to a question); the people, nights, day and time a booking states must
  be those of the turn's state;
- offers: a venue or train offered (an ``offer`` act whose name the text says) must meet the constraints in
  force, unless the reply says nothing matches or the user named it.

The turn's internals (belief state, acts, ``internals``) are read for the constraints and to confirm that a
booking happened; the facts themselves are read from the text, so a wrong reply is found however it was made.

>>> audit = Auditor()
>>> report = audit.dialogue([AuditTurn("is it in the north?", "No, Da Vinci Pizzeria is in the east.")])
>>> [(f.kind, f.said, f.truth) for f in report.findings]
[('area', 'east', 'north')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from parley.engine.mwdb import MultiwozDB, load_db
from parley.engine.scoring import claims as C
from parley.engine.scoring import factbook as B
from parley.engine.scoring import factcheck as F
from parley.engine.scoring.factdb import SEARCHED, meets, trains_by_id
from parley.engine.scoring.factmemory import Entity, Memory, Resolver
from parley.engine.types import DialogueAct, is_dialogue_act
from parley.jsontypes import json_object

if TYPE_CHECKING:
    from parley.store.records import TurnRecord


@dataclass(frozen=True)
class AuditTurn:
    """One exchange: the user's text (as the system received it), the reply, and the turn's internals."""

    user: str
    system: str
    state: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    acts: tuple[DialogueAct, ...] = ()
    internals: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Finding:
    """A wrong fact: what kind, what the reply said, what is true, where."""

    turn: int
    kind: str
    said: str
    truth: str
    reply: str
    dialogue: str = ""

    def to_json(self) -> dict[str, str | int]:
        return {"dialogue": self.dialogue, "turn": self.turn, "kind": self.kind, "said": self.said,
                "truth": self.truth, "reply": self.reply}


@dataclass
class Report:
    replies: int = 0
    facts: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def per_1000(self) -> float:
        """Wrong facts per 1,000 replies."""
        return 1000 * len(self.findings) / self.replies if self.replies else 0.0

    def add(self, other: Report) -> None:
        self.replies += other.replies
        self.facts += other.facts
        self.findings.extend(other.findings)

    def to_json(self) -> dict[str, object]:
        kinds: dict[str, int] = {}
        for f in self.findings:
            kinds[f.kind] = kinds.get(f.kind, 0) + 1
        return {"replies": self.replies, "facts": self.facts, "wrong": len(self.findings),
                "wrong_per_1000_replies": round(self.per_1000, 3), "by_kind": kinds,
                "findings": [f.to_json() for f in self.findings]}


#: a free entrance asked for in the turn ("any free ones?"), a constraint the belief state has no slot for
FREE = re.compile(r"\b(?:free|no (?:entrance|entry) fee|doesn't charge|don't charge)\b"
                  r"(?! (?:parking|wifi|wi-fi|internet))", re.I)


class Auditor:
    """Checks replies against the MultiWOZ databases (one instance serves many dialogues)."""

    def __init__(self, db: MultiwozDB | None = None) -> None:
        self.db = db or load_db()
        self.reader = C.Reader(self.db)
        self.resolver = Resolver(self.db, self.reader)
        self.rows = F.Rows(self.db)
        self.colours = [str(c) for c in self.db.taxi.get("taxi_colors", [])]
        self.makes = [str(c) for c in self.db.taxi.get("taxi_types", [])]

    def dialogue(self, turns: Sequence[AuditTurn], name: str = "") -> Report:
        mem = Memory()
        report = Report()
        for i, t in enumerate(turns):
            report.add(self.turn(i, t, mem, name))
        return report

    # -- one reply -------------------------------------------------------------------------------------------
    def turn(self, i: int, t: AuditTurn, mem: Memory, name: str = "") -> Report:
        out = Report(replies=1)
        t = replace(t, user=re.sub(r"\s+'(?=(?:s|ll|d|m|re|ve|t)\b)", "'", t.user))  # the corpus's "I 'll"

        def report(kind: str, said: str, truth: str) -> None:
            out.findings.append(Finding(i, kind, str(said), str(truth), t.system, name))

        target = self.resolver.target(t.user, mem, booked=bool(B.REF_ASK.search(t.user)))
        active = t.internals.get("active_domain") if isinstance(t.internals, Mapping) else None
        before = {b.entity.domain for b in mem.bookings}
        booking = bool(B.BOOKED.search(t.system))
        subject: Entity | None = None
        domain = active if isinstance(active, str) else None
        nooffer = False
        for s in self.reader.sentences(t.system):
            own = [m for m in s.mentions if m.domain != "train" or len(s.mentions) == 1]
            if len(own) == 1:
                subject = Entity(own[0].domain, own[0].id)
            elif not own and (C.car(s.text, self.colours, self.makes) or (
                    F.TAXI_CUE.search(s.text) and (mem.taxi() is not None or booking))):
                subject = Entity("taxi", "")
            elif not own and subject is None:
                subject = target or self._focus(t, mem, active)
            domain = self._domain(s) or domain
            cons = self._constraints(t, domain)
            counted = (F.check_counts(s, domain, cons, self.db, report)
                       + F.check_relax(s, domain, cons, self.db, report))
            out.facts += counted
            nooffer = nooffer or counted > 0 or bool(F.RELAX.search(s.text))
            out.facts += B.references(s, t, mem, target, subject, report)
            out.facts += B.taxis(s, t, mem, subject, own, self.colours, self.makes, self.rows.row, report)
            if subject is not None and subject.domain != "taxi" and len(own) <= 1:
                out.facts += self._about(s, t, subject, report)
            for m in s.mentions:
                mem.name(Entity(m.domain, m.id))
        if not nooffer:
            out.facts += self._offers(t, report)
        if B.unasked(t, before, self.colours, self.makes):
            out.facts += 1
            report("booking", t.system, f"nothing to book: the user asked {t.user!r}")
        return out

    # -- helpers ---------------------------------------------------------------------------------------------
    def _focus(self, t: AuditTurn, mem: Memory, active: object) -> Entity | None:
        """What a reply that names nothing talks about when the user named nothing either: the taxi when
        the reply names its car or the user asks about a taxi, else the last thing named (of the active
        domain first)."""
        taxi = mem.taxi()
        if taxi is not None and (C.car(t.system, self.colours, self.makes) == taxi.entity.id
                                 or B.TAXI_WORDS.search(t.user)):
            return Entity("taxi", "")
        return mem.last(active if isinstance(active, str) else None) or mem.last()

    @staticmethod
    def _domain(s: C.Sentence) -> str | None:
        """The domain a sentence counts or describes ("5 trains", "no cheap restaurants"), if it says."""
        m = C.COUNT.search(s.text)
        if m and C.noun_domain(m.group(2)):
            return C.noun_domain(m.group(2))
        low = s.text.lower()
        for word, d in (("train", "train"), ("restaurant", "restaurant"), ("places to stay", "hotel"),
                        ("guesthouses", "hotel"), ("hotels", "hotel"), ("attractions", "attraction")):
            if word in low:
                return d
        return None

    def _constraints(self, t: AuditTurn, domain: str | None) -> dict[str, str]:
        if not domain:
            return {}
        cons = {s: str(v) for s, v in (t.state.get(domain) or {}).items() if s in SEARCHED.get(domain, ())}
        filters = t.internals.get("filters") if isinstance(t.internals, Mapping) else None
        if isinstance(filters, Mapping):
            cons.update({s: str(v) for s, v in (filters.get(domain) or {}).items()})
        if domain == "attraction" and FREE.search(t.user):
            cons["entrance fee"] = "free"
        return cons

    def _about(self, s: C.Sentence, t: AuditTurn, subject: Entity, report: F.Report) -> int:
        """Values said of the sentence's subject (not counts, references or phones)."""
        row = self.rows.row(subject)
        if row is None:
            if subject.domain in C.VENUES or subject.domain == "train":
                report("name", subject.id, "no such venue or train")
                return 1
            return 0
        n = 0
        train_rows = self._train_rows(subject, t) if subject.domain == "train" else []
        answers = F.slot_answers(s)
        for slot, value in answers:
            if slot == "phone":
                continue
            n += F.check_value(slot, value, subject, row, train_rows, report)
        for m in C.POSTCODE.finditer(s.text):
            if not any(slot == "postcode" for slot, _ in answers):
                n += F.check_value("postcode", m.group(0), subject, row, [], report)
        if s.question or F.NOOFFER.search(s.text) or F.RELAX.search(s.text):
            return n
        if not answers:
            n += F.check_attributes(s, subject, row, report)
        n += F.check_room_prices(s, row, report)
        timed = any(a[0] in ("leaveAt", "arriveBy") for a in answers)
        if subject.domain == "train" and train_rows and not timed:
            people = None
            if B.BOOKED.search(s.text) or re.search(r"\btotal\b", s.text, re.I):
                many = re.search(r"\b(\d+) (?:people|tickets?|seats?)\b", s.text)
                people = int(many.group(1)) if many else None
            n += F.check_train(s, train_rows, report, people)
        return n

    def _train_rows(self, e: Entity, t: AuditTurn) -> list[Mapping[str, object]]:
        """The rows of a train id that fit the turn's day and route (ids are not unique in the database)."""
        rows = trains_by_id(self.db, e.id)
        want = {k: v for k, v in (t.state.get("train") or {}).items()
                if k in ("day", "departure", "destination")}
        fit = [r for r in rows if all(str(r.get(k, "")).lower() == str(v).lower() for k, v in want.items()
                                      if v and v != "dontcare")]
        return fit or rows

    def _offers(self, t: AuditTurn, report: F.Report) -> int:
        """A venue or train the turn offers (its ``offer`` act; the text names it) meets the constraints in
        force, unless the user named it."""
        n = 0
        low = t.system.lower()
        for a in t.acts:
            if a.get("act") != "offer" or a.get("slot") not in ("name", "trainID") or not a.get("value"):
                continue
            d, value = str(a.get("domain")), str(a.get("value"))
            if value.lower() not in low or value.lower() in t.user.lower():
                continue
            row = self.rows.row(Entity(d, value))
            cons = {k: v for k, v in self._constraints(t, d).items() if k != "name"}
            if row is None or not cons:
                continue
            rows = self._train_rows(Entity(d, value), t) if d == "train" else [row]
            n += 1
            bad = [f"{k}={v}" for k, v in cons.items() if not any(meets(d, r, k, v) for r in rows)]
            if bad:
                report("offer", value, f"breaks {', '.join(bad)}")
        return n


def _audit_turn(user: str, system: str, info: Mapping[str, object]) -> AuditTurn:
    """A turn with the state, acts and internals of ``info`` (a ``--json`` line, a stored turn's
    internals)."""
    acts = info.get("acts")
    state = {str(d): json_object(s) for d, s in json_object(info.get("state")).items()}
    return AuditTurn(user, system, state,
                     tuple(a if is_dialogue_act(a) else DialogueAct() for a in acts)
                     if isinstance(acts, list | tuple) else (),
                     json_object(info.get("internals")))


def turns_from_json(lines: Iterable[Mapping[str, object]]) -> list[AuditTurn]:
    """Turns from ``parley chat --script --json`` objects."""
    return [_audit_turn(str(x.get("final") or x.get("user") or ""), str(x.get("system") or ""), x)
            for x in lines if x.get("system") is not None]


def turns_from_store(turns: Sequence[TurnRecord]) -> list[AuditTurn]:
    """Turns of a stored session (``store.records.TurnRecord`` list, any order)."""
    out = []
    ordered = sorted(turns, key=lambda x: x.index)
    for k, u in enumerate(ordered):
        nxt = ordered[k + 1] if k + 1 < len(ordered) else None
        if u.role != "user" or nxt is None or nxt.role != "system" or nxt.status != "ok":
            continue
        out.append(_audit_turn(u.text_final or u.text, nxt.text, nxt.internals or {}))
    return out
