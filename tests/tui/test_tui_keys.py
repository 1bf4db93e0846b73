"""Keys sent in bursts land where the tester meant: each one is a turn's text, a rating or a command, in the
order it was typed — never two places, never none — with the machine idle and with every core busy.

The keys are posted to the app all at once, as the terminal driver does with what it reads in one go
(``pilot.burst``), and, where a path allows it, pressed one by one with ``pilot.press``. Every test waits on
what is stored (the database), never on time."""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual import events
from textual._xterm_parser import XTermParser

from parley.tui.app import ParleyApp
from parley.tui.widgets.chatlog import ChatLog, UserTurnView
from tests.load import load  # noqa: F401 (the fixture)
from tests.tui import fakes
from tests.tui.pilot import ESCAPE, burst, notes, say, settle, until

fakes.register()

THREE = "first turn alpha\rsecond turn beta\rthird turn gamma\r"
THREE_TEXTS = ["first turn alpha", "second turn beta", "third turn gamma"]
UP = "\x1b[A"


@pytest.fixture
def gate() -> Iterator[None]:
    """tui-gate answers only once the test opens the gate; it is open again after the test."""
    fakes.GATE.set()
    yield
    fakes.GATE.set()


def make_app(tmp_path: Path, system: str = "tui-fake") -> ParleyApp:
    return ParleyApp(db_path=str(tmp_path / "t.db"), system_spec=system, tester="ana", seed=7)


def query(tmp_path: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{tmp_path / 't.db'}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []
    finally:
        conn.close()


def user_turns(tmp_path: Path) -> list[tuple[str, str]]:
    sql = "SELECT text, status FROM turns WHERE role = 'user' ORDER BY session_id, \"index\""
    return [(str(t), str(s)) for t, s in query(tmp_path, sql)]


def texts(tmp_path: Path) -> list[str]:
    return [t for t, _ in user_turns(tmp_path)]


def ratings(tmp_path: Path) -> list[tuple[str, Any, Any]]:
    """(system turn text, relevance, interestingness) of every stored turn rating, in dialogue order."""
    sql = ("SELECT t.text, r.relevance, r.interestingness FROM turn_ratings r "
           "JOIN turns t ON t.id = r.turn_id ORDER BY t.\"index\"")
    return [(str(t), r, i) for t, r, i in query(tmp_path, sql)]


def answered(tmp_path: Path) -> int:
    return len(query(tmp_path, "SELECT id FROM turns WHERE role = 'system' AND status = 'ok'"))


async def send(pilot: Any, delivery: str, *parts: str) -> None:
    """``burst``: all at once; ``press``: the same keys through ``pilot.press``, one after the other."""
    if delivery == "burst":
        burst(pilot, *parts)
        return
    keys: list[str] = []
    for part in parts:
        made = [] if part == ESCAPE else XTermParser().feed(part)
        keys += ["escape"] if part == ESCAPE else [e.key for e in made if isinstance(e, events.Key)]
    await pilot.press(*keys)


async def started(pilot: Any) -> Any:
    await settle(pilot)
    await until(pilot, lambda: pilot.app.screen.session is not None, "the session to start")
    return pilot.app.screen


# -- three turns in one burst ----------------------------------------------------------------------------
@pytest.mark.usefixtures("load")
@pytest.mark.parametrize("delivery", ["burst", "press"])
async def test_three_turns_typed_in_one_burst_are_three_turns_in_order(tmp_path: Path,
                                                                       delivery: str) -> None:
    """They were stored as three copies of all three texts run together, each answered."""
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        chat = await started(pilot)
        await send(pilot, delivery, THREE)
        await until(pilot, lambda: answered(tmp_path) == 3, "three answers")
        await settle(pilot)
        assert [v.typed for v in chat.query(UserTurnView)] == THREE_TEXTS
        assert chat.prompt.value == ""
    assert user_turns(tmp_path) == [(t, "ok") for t in THREE_TEXTS]
    assert answered(tmp_path) == 3


@pytest.mark.usefixtures("load")
async def test_three_turns_in_one_burst_to_a_slow_system_wait_stored_and_are_answered_in_order(
        tmp_path: Path, gate: None) -> None:
    app = make_app(tmp_path, "tui-gate")
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot)
        fakes.GATE.clear()  # the system holds its answers
        burst(pilot, THREE)
        await until(pilot, lambda: len(user_turns(tmp_path)) == 3, "three stored turns")
        assert user_turns(tmp_path) == [(t, "pending") for t in THREE_TEXTS]
        fakes.GATE.set()
        await until(pilot, lambda: answered(tmp_path) == 3, "three answers")
        await settle(pilot)
    assert user_turns(tmp_path) == [(t, "ok") for t in THREE_TEXTS]


async def test_edit_keys_in_a_burst_apply_where_they_were_typed(tmp_path: Path) -> None:
    """backspace and left were bindings acted on after the keys behind them had been typed."""
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot)
        burst(pilot, "hell\x7flo there\r", "helo\x1b[D\x1b[Dl\r")  # ⌫ after "hell"; ← ← then "l"
        await until(pilot, lambda: answered(tmp_path) == 2, "two answers")
    assert texts(tmp_path) == ["hello there", "hello"]


# -- rate, then type at once -------------------------------------------------------------------------------
@pytest.mark.usefixtures("load")
@pytest.mark.parametrize("delivery", ["burst", "press"])
@pytest.mark.parametrize(("keys", "rating", "turn"), [
    ("23i need a taxi\r", (2, 3), "i need a taxi"),  # the i that leaves rating mode is the first letter
    ("123 people at 18:00\r", (1, 2), "3 people at 18:00"),  # the rating is complete: a digit is text
])
async def test_keys_typed_right_after_rating_are_the_next_turn(tmp_path: Path, delivery: str, keys: str,
                                                               rating: tuple[int, int], turn: str) -> None:
    """escape, a rating, then a turn, at once: the rating is stored, and so is the whole turn, spaces and
    all (right after rating, the turn was lost, its first letter swallowed, its spaces dropped, a digit
    rated)."""
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        chat = await started(pilot)
        await say(pilot, "one")
        await send(pilot, delivery, ESCAPE, keys)
        await until(pilot, lambda: answered(tmp_path) == 2, "the second answer")
        await until(pilot, lambda: len(ratings(tmp_path)) == 1, "the rating")
        await settle(pilot)
        assert chat.prompt.value == "" and not chat.log_view.rating
    assert ratings(tmp_path) == [(fakes.REPLIES[0], *rating)]
    assert texts(tmp_path) == ["one", turn]


@pytest.mark.usefixtures("load")
async def test_a_paste_in_rating_mode_is_text_and_no_stored_rating_changes(tmp_path: Path) -> None:
    """A paste holding a digit changed the stored relevance of an earlier turn."""
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot)
        await say(pilot, "one")
        burst(pilot, ESCAPE, "2", ESCAPE)
        await until(pilot, lambda: ratings(tmp_path) == [(fakes.REPLIES[0], 2, None)], "the first rating")
        await say(pilot, "two")
        burst(pilot, ESCAPE, "\x1b[200~book it for 3 people\x1b[201~", "\r")
        await until(pilot, lambda: answered(tmp_path) == 3, "the third answer")
        await settle(pilot)
    assert texts(tmp_path) == ["one", "two", "book it for 3 people"]
    assert ratings(tmp_path) == [(fakes.REPLIES[0], 2, None)]


@pytest.mark.usefixtures("load")
async def test_rating_and_typing_mixed_in_one_burst_each_land_once(tmp_path: Path,
                                                                   gate: None) -> None:
    """escape, up, 3 1 (the first reply), a turn, escape, 2 (the second reply), enter: two ratings and one
    turn, nothing typed twice, nothing rated twice."""
    app = make_app(tmp_path, "tui-gate")
    async with app.run_test(size=(100, 40)) as pilot:
        chat = await started(pilot)
        await say(pilot, "one")
        await say(pilot, "two")
        fakes.GATE.clear()  # "three" stays unanswered: the second escape selects the second reply
        burst(pilot, ESCAPE, UP, "31", "three\r", ESCAPE, "2\r")
        await until(pilot, lambda: (len(ratings(tmp_path)), len(user_turns(tmp_path))) == (2, 3), "the burst")
        # not settle(): it would wait out the gated answer (30 s); check while "three" is unanswered
        await pilot.pause()
        assert not chat.log_view.rating and chat.prompt.value == ""
        assert answered(tmp_path) == 2
        fakes.GATE.set()
        await until(pilot, lambda: answered(tmp_path) == 3, "the third answer")
    assert texts(tmp_path) == ["one", "two", "three"]
    assert ratings(tmp_path) == [(fakes.REPLIES[0], 3, 1), (fakes.REPLIES[1], 2, None)]


async def test_a_digit_that_is_no_rating_is_refused_and_rating_mode_stays(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        chat = await started(pilot)
        await say(pilot, "one")
        burst(pilot, ESCAPE, "7", "2", "tab")  # tab is text here: it leaves rating mode
        await until(pilot, lambda: len(ratings(tmp_path)) == 1, "the rating")
        await settle(pilot)
        assert any("7 is not a rating" in n for n in notes(app))
        assert chat.prompt.value == "tab" and not chat.log_view.rating
    assert ratings(tmp_path) == [(fakes.REPLIES[0], 2, None)]


# -- pastes --------------------------------------------------------------------------------------------
@pytest.mark.usefixtures("load")
async def test_a_bracketed_paste_of_three_lines_is_three_turns(tmp_path: Path) -> None:
    """Input kept the first line of a paste and dropped the others without a word."""
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        chat = await started(pilot)
        burst(pilot, "\x1b[200~" + "\n".join(THREE_TEXTS) + "\x1b[201~")
        await until(pilot, lambda: answered(tmp_path) == 3, "three answers")
        await settle(pilot)
        assert chat.prompt.value == ""
    assert user_turns(tmp_path) == [(t, "ok") for t in THREE_TEXTS]


async def test_a_paste_joins_the_text_typed_before_it_and_skips_blank_lines(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        await started(pilot)
        burst(pilot, "I want ")
        app.post_message(events.Paste("a table\r\n\r\n  for two  \n"))
        await until(pilot, lambda: answered(tmp_path) == 2, "two answers")
    assert texts(tmp_path) == ["I want a table", "for two"]


async def test_a_paste_of_too_many_lines_is_refused_with_a_message(tmp_path: Path) -> None:
    from parley.tui.widgets.prompt import MAX_PASTE_LINES

    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        chat = await started(pilot)
        burst(pilot, "kept")
        app.post_message(events.Paste("\n".join(f"line {i}" for i in range(MAX_PASTE_LINES + 1))))
        await until(pilot, lambda: any("was not sent" in n for n in notes(app)), "the refusal")
        await settle(pilot)
        assert chat.prompt.value == "kept"
    assert user_turns(tmp_path) == []


async def test_a_refused_paste_keeps_what_was_not_sent_in_the_prompt(tmp_path: Path) -> None:
    """A turn the screen refuses (here: quitting) is never dropped: the lines not sent wait in the prompt."""
    from parley.tui.widgets.prompt import Prompt

    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        chat = await started(pilot)
        sent: list[str] = []

        def first_only(text: str) -> int | None:  # the second line is refused
            if sent:
                return None
            sent.append(text)
            return 1

        prompt = chat.query_one(Prompt)
        prompt._send = first_only
        app.post_message(events.Paste("one\ntwo\nthree"))
        await until(pilot, lambda: prompt.value != "", "the prompt to hold the rest")
        assert sent == ["one"] and prompt.value == "two three"
        assert any("last 2 lines were not sent" in n for n in notes(app))


async def test_the_log_never_takes_the_focus(tmp_path: Path) -> None:
    """Rating mode is a state of the prompt: the focus never moves, so no key can be queued at a widget that
    is about to lose it."""
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        chat = await started(pilot)
        await say(pilot, "one")
        await pilot.press("escape")
        assert chat.log_view.rating and chat.prompt.has_focus
        await pilot.click(ChatLog)
        assert chat.prompt.has_focus


# -- any burst: the input model, stated once more as a model ---------------------------------------------
@dataclass
class Model:
    """What a burst must do, key by key (the prompt's docstring in a few lines): two answered system turns;
    turns typed meanwhile stay unanswered, so no new turn can be selected while the burst is read."""

    buffer: str = ""
    turns: list[str] = field(default_factory=list)
    rated: dict[tuple[int, int], int] = field(default_factory=dict)  # (turn, aspect) → value
    rating: bool = False
    turn: int = 1
    aspect: int | None = 0

    def key(self, kind: str, text: str = "") -> None:
        if kind == "text":
            for ch in text:
                if self.rating and ch.isdigit() and self.aspect is not None:
                    if ch in "123":
                        self.rated[(self.turn, self.aspect)] = int(ch)
                        self.aspect = 1 if self.aspect == 0 else None
                    continue  # another digit is refused
                self.rating = False
                self.buffer += ch
        elif kind == "enter":
            if not self.rating and self.buffer.strip():
                self.turns.append(self.buffer.strip())
                self.buffer = ""
            self.rating = False
        elif kind == "escape":
            self.rating, self.turn, self.aspect = not self.rating, 1, 0
        elif kind in ("up", "down") and self.rating:
            self.turn, self.aspect = (0 if kind == "up" else 1), 0
        elif kind == "tab" and self.rating:
            self.aspect = 0 if self.aspect is None else 1 - self.aspect
        elif kind == "paste":
            self.rating = False
            if "".join(text.splitlines()) == text:
                self.buffer += text
            else:
                self.turns += [line.strip() for line in (self.buffer + text).splitlines() if line.strip()]
                self.buffer = ""


TERMINAL = {"enter": "\r", "escape": ESCAPE, "up": UP, "down": "\x1b[B", "tab": "\t"}
SEGMENTS = st.one_of(
    st.tuples(st.just("text"), st.text(alphabet="ab 1234", min_size=1, max_size=6)),
    st.tuples(st.sampled_from(sorted(TERMINAL)), st.just("")),
    st.tuples(st.just("paste"), st.lists(st.text(alphabet="cd 3", max_size=5), min_size=1, max_size=3)
              .map("\n".join).filter(bool)),  # an empty bracketed paste is no event at all
)


def view_ratings(chat: Any) -> dict[tuple[int, int], int]:
    """The ratings the log shows as stored: (system turn, aspect) → value."""
    return {(i, a): v for i, view in enumerate(chat.log_view.system_views())
            for a, v in enumerate(view.ratings.values()) if v is not None}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(segments=st.lists(SEGMENTS, min_size=1, max_size=14))
def test_any_burst_lands_as_the_input_model_says(segments: list[tuple[str, str]]) -> None:
    model = Model()
    for kind, text in segments:
        model.key(kind, text)
    parts = [text if kind == "text" else f"\x1b[200~{text}\x1b[201~" if kind == "paste" else TERMINAL[kind]
             for kind, text in segments]

    async def run(tmp_path: Path) -> None:
        app = make_app(tmp_path, "tui-gate")
        async with app.run_test(size=(100, 40)) as pilot:
            chat = await started(pilot)
            await say(pilot, "one")
            await say(pilot, "two")
            fakes.GATE.clear()  # no answer (no new system turn) while the burst is read
            try:
                burst(pilot, *parts)

                def landed() -> bool:
                    return (chat.prompt.value == model.buffer and chat.log_view.rating == model.rating
                            and texts(tmp_path) == ["one", "two", *model.turns]
                            and view_ratings(chat) == model.rated and not chat.ratings.saving)

                await until(pilot, landed, "the burst to land", 60)
            finally:
                fakes.GATE.set()
            await until(pilot, lambda: answered(tmp_path) == 2 + len(model.turns), "the answers")
        stored = {r[0] for r in ratings(tmp_path)}
        assert stored == {fakes.REPLIES[i] for i, _ in model.rated}

    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(Path(tmp)))


def test_an_answer_shown_while_the_chat_is_taken_down_is_skipped_not_a_crash() -> None:
    """ctrl+q right as an answer came: the screen showed it in a log no longer attached to the app, and the
    app ended with a traceback and exit code 1 (the answer was stored already)."""
    log = ChatLog()  # attached to no app, as the chat's log is while the app quits
    log.add_note("an answer arriving now")
    assert not log.children
