"""Nothing a rater or tester did is lost, with ``parley`` a real process in a pseudo-terminal and its keys
written in bursts, idle and with every core busy: quitting ``parley rate`` in the middle of a turn keeps the
relevance given; ``escape`` in the dialogue rating form asks first, and going back keeps the answers and the
typed justification for the rating submitted afterwards; turns typed while a system fails to load are
stored, the screen says the load failed, and quitting keeps them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.integration.test_tui_keys_process import THREE, rows
from tests.integration.test_tui_process import Tui, in_pty, tui_in_pty
from tests.load import load
from tests.stored import broken_checkpoint, sessions, user_rows, user_turns, wait_for

__all__ = ["load"]  # the fixture, imported for its use here

pytestmark = [pytest.mark.subprocess, pytest.mark.usefixtures("load")]

SHIFT_TAB, CTRL_S, CTRL_Q, ESC = b"\x1b[Z", b"\x13", b"\x11", b"\x1b"
TURN_RATINGS = ("SELECT r.relevance, r.interestingness FROM turn_ratings r JOIN turns t ON t.id = r.turn_id "
                "WHERE r.rater = 'ana' ORDER BY t.\"index\"")
DIALOGUE_RATINGS = ("SELECT understanding, task_completion, interest_arousal, efficiency, overall, "
                    "justification FROM dialogue_ratings WHERE rater = 'ana'")


def shown_after(tui: Tui, mark: int, text: bytes, seconds: float = 120.0) -> bool:
    """Whether ``text`` was drawn after the first ``mark`` bytes of the screen (what the keys since made)."""
    return wait_for(lambda: text in tui.screen[mark:], seconds)


def ended(tui: Tui, seconds: float = 120.0) -> int | None:
    """The exit code once the process ended (None: it still runs)."""
    try:
        return tui.proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return None


def rate(tmp_path: Path) -> tuple[Path, list[str]]:
    """A database holding two authored dialogues (imported through the MultiWOZ importer) and a rater who
    has seen the instructions; the arguments that open ``parley rate`` on it."""
    from parley.store.annotation import Annotation
    from tests.tui.annotate_fixtures import corpus_store

    store = corpus_store(tmp_path)
    Annotation(store, "ana").mark_instructions_seen()
    store.close()
    db = tmp_path / "rate.db"
    return db, ["rate", "--db", str(db), "--rater", "ana"]


def test_quitting_parley_rate_in_the_middle_of_a_turn_keeps_its_relevance(tmp_path: Path) -> None:
    db, args = rate(tmp_path)
    with in_pty(args, tmp_path) as tui:
        assert tui.shown(b"Somewhat", 120), "parley rate did not start"
        tui.press(b"321q")  # turn 1 rated, turn 2's relevance given (not its interestingness), quit
        code = ended(tui)
    assert code == 0, f"exit code {code}: {bytes(tui.screen[-300:])!r}"
    assert rows(db, TURN_RATINGS) == [(3, 2), (1, None)]


def test_escape_in_the_dialogue_form_asks_and_keep_editing_keeps_the_answers(tmp_path: Path) -> None:
    """The three turns of the first dialogue rated and the form opened in one burst, two answers and a
    reason in the next; escape (written alone: a terminal sends ESC followed at once by a key as alt+key)
    asks; n goes back to the form, and the rest of the answers then ctrl+s store the rating with the reason
    typed before."""
    db, args = rate(tmp_path)
    with in_pty(args, tmp_path) as tui:
        assert tui.shown(b"Somewhat", 120), "parley rate did not start"
        tui.press(b"322103d")  # the last turn not applicable, then d: the dialogue rating form
        assert tui.shown(b"ctrl+s submits", 120), "the dialogue form did not open"
        tui.press(b"32too slow")
        turns = [(3, 2), (2, 1), ("n/a", 3)]
        assert wait_for(lambda: rows(db, TURN_RATINGS) == turns), rows(db, TURN_RATINGS)
        mark = len(tui.screen)
        tui.press(ESC)
        assert shown_after(tui, mark, b"Discard your answers?"), "escape did not ask before discarding"
        assert rows(db, DIALOGUE_RATINGS) == []
        mark = len(tui.screen)
        tui.press(b"n")
        assert shown_after(tui, mark, b"too slow"), "the form did not come back with the typed justification"
        # from the justification back to the third scale, its answer and the last two, then submit
        tui.press(SHIFT_TAB * 3 + b"104" + CTRL_S)
        assert wait_for(lambda: rows(db, DIALOGUE_RATINGS) != []), "the rating was not stored"
        tui.press(b"q")
        code = ended(tui)
    assert code == 0, f"exit code {code}"
    assert rows(db, DIALOGUE_RATINGS) == [(3, 2, 1, 0, 4, "too slow")]


def test_turns_typed_in_a_burst_while_the_system_fails_to_load_are_kept_after_quitting(
        tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    ckpt = broken_checkpoint(tmp_path / "ckpt")  # an empty weights file: the load fails
    system = f"hf-causal:model={ckpt}"
    with tui_in_pty(db, tmp_path, system) as tui:
        assert tui.shown(b"ype to the system", 120), "the chat did not start"
        tui.press(("\r".join(THREE) + "\r").encode())
        assert wait_for(lambda: user_turns(db) == [(t, "pending") for t in THREE]), user_turns(db)
        assert tui.shown(b"Could not load", 300), "the screen did not say the load failed"
        assert user_turns(db) == [(t, "pending") for t in THREE]  # the failure kept them
        mark = len(tui.screen)
        tui.press(CTRL_Q)
        assert shown_after(tui, mark, b"Quit parley?"), "ctrl+q did not ask"
        assert shown_after(tui, mark, b"stored already (pending)"), "the quit dialog did not say so"
        tui.press(b"c")  # no system to finish them with: cancel them and quit
        code = ended(tui)
    assert code == 0, f"exit code {code}: {bytes(tui.screen[-300:])!r}"
    assert [(text, status) for text, status, _ in user_rows(db)] == [(t, "cancelled") for t in THREE]
    ((name, end),) = sessions(db)
    assert name == system and end is not None
