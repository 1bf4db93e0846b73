"""remote: every exchange is bounded, NaN replies are refused, error bodies stay data.

The bots are real HTTP servers on 127.0.0.1 / 127.0.0.2 (tests/bots.py), started here and stopped by
themselves."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from parley.engine.http import HttpFailure, Limits, strict_loads
from parley.engine.spec import SpecError
from parley.engine.systems import build_system
from parley.engine.types import Message
from tests.bots import ERROR_BODY, BotServer, bot_pair

HISTORY = (Message("user", "I need a cheap hotel"),)
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bots() -> Iterator[tuple[BotServer, BotServer]]:
    with bot_pair() as pair:
        yield pair


def _fails(spec: str, kind: str, within: float) -> HttpFailure:
    bot = build_system(spec)
    t0 = time.perf_counter()
    with pytest.raises(HttpFailure) as info:
        bot.respond(HISTORY)
    took = time.perf_counter() - t0
    assert info.value.kind == kind, str(info.value)
    assert took < within, f"{spec}: {took:.1f} s"
    return info.value


def test_trickle_is_cut_at_the_attempt_deadline(bots: tuple[BotServer, BotServer]) -> None:
    bot, _ = bots
    err = _fails(f"remote:url={bot.url}/trickle,timeout=2,retries=0", "timeout", within=3.5)
    assert "within 2 s" in str(err)


def test_turn_deadline_bounds_every_retry(bots: tuple[BotServer, BotServer]) -> None:
    bot, _ = bots
    err = _fails(
        f"remote:url={bot.url}/slow?s=5,timeout=1,retries=5,turn_timeout=1.6", "deadline", within=2.6
    )
    assert "turn deadline" in str(err)
    assert Limits(timeout=2, retries=2).turn_deadline == pytest.approx(2 * 3 + 0.25 + 0.5 + 0.25)


def test_endless_and_huge_bodies_are_capped(bots: tuple[BotServer, BotServer]) -> None:
    bot, _ = bots
    import psutil

    rss0 = psutil.Process().memory_info().rss
    err = _fails(f"remote:url={bot.url}/endless,retries=0", "too_large", within=10)
    assert "1,000,000 bytes" in str(err)
    _fails(f"remote:url={bot.url}/huge-chunked,retries=0,max_bytes=200000", "too_large", within=10)
    err = _fails(f"remote:url={bot.url}/huge,retries=0", "too_large", within=5)
    assert "50,000,000 bytes" in str(err)  # refused from Content-Length, before reading
    assert psutil.Process().memory_info().rss - rss0 < 100_000_000


def test_max_bytes_is_configurable(bots: tuple[BotServer, BotServer]) -> None:
    bot, _ = bots
    _fails(f"remote:url={bot.url}/ok,max_bytes=20,retries=0", "too_large", within=5)
    assert (
        build_system(f"remote:url={bot.url}/ok,max_bytes=5000").respond(HISTORY).text.startswith("You said")
    )
    with pytest.raises(SpecError, match="max_bytes"):
        build_system(f"remote:url={bot.url}/ok,max_bytes=0")
    with pytest.raises(SpecError, match="turn_timeout"):
        build_system(f"remote:url={bot.url}/ok,turn_timeout=-1")


@pytest.mark.parametrize("path", ["/redirect-other?code=307", "/redirect-other?code=308", "/302-other"])
def test_redirect_to_another_host_is_refused(bots: tuple[BotServer, BotServer], path: str) -> None:
    bot, other = bots
    before = list(other.hits)
    err = _fails(f"remote:url={bot.url}{path},retries=2", "redirect", within=5)
    assert "another host" in str(err) and other.url in str(err)
    assert other.hits == before  # nothing was re-sent there


def test_same_origin_redirect_is_followed_and_reported(bots: tuple[BotServer, BotServer]) -> None:
    bot, _ = bots
    turn = build_system(f"remote:url={bot.url}/redirect-same").respond(HISTORY)
    assert turn.text == "You said: I need a cheap hotel"
    assert turn.internals["url"] == f"{bot.url}/ok"


@pytest.mark.parametrize("path", ["/nan", "/inf"])
def test_nan_and_infinity_are_refused(bots: tuple[BotServer, BotServer], path: str) -> None:
    bot, _ = bots
    err = _fails(f"remote:url={bot.url}{path},retries=0", "json", within=5)
    assert "not JSON" in str(err)
    for bad in ('{"a": NaN}', '{"a": -Infinity}', '{"a": 1e400}', "[" * 100_000):
        with pytest.raises(ValueError):
            strict_loads(bad)
    assert strict_loads('{"a": 1.5e3}') == {"a": 1500.0}


def test_error_body_is_kept_as_data(bots: tuple[BotServer, BotServer]) -> None:
    bot, _ = bots
    err = _fails(f"remote:url={bot.url}/error-body,retries=0", "status", within=5)
    assert err.body == ERROR_BODY and err.status == 500
    assert "x[/bold]y \x1b]0;TITLE\x07 \x1b[2J" in str(err)  # literal; the TUI escapes it when showing


def test_failed_turn_is_stored_with_its_error(bots: tuple[BotServer, BotServer], tmp_path: Path) -> None:
    from parley.engine.session import Session
    from parley.store import open_store

    bot, _ = bots
    store = open_store(tmp_path / "s.db")
    session = Session(store, build_system(f"remote:url={bot.url}/nan,retries=0"), seed=1)
    ex = session.turn("hello")
    assert not ex.ok
    rows = store.turns(session.id)
    assert [r.status for r in rows] == ["ok", "failed"] and "NaN" in (rows[1].error or "")


def test_close_cancels_a_request_in_flight(bots: tuple[BotServer, BotServer]) -> None:
    bot, _ = bots
    system = build_system(f"remote:url={bot.url}/slow?s=20,timeout=30,retries=0")
    system.load()
    result: dict[str, object] = {}

    def call() -> None:
        try:
            system.respond(HISTORY)
        except HttpFailure as e:
            result["err"] = e

    t = threading.Thread(target=call)
    t.start()
    time.sleep(0.5)
    t0 = time.perf_counter()
    system.close()
    t.join(timeout=15)
    assert not t.is_alive() and time.perf_counter() - t0 < 10  # the bot answers after 20 s
    err = result["err"]
    assert isinstance(err, HttpFailure) and err.kind == "cancelled"


@pytest.mark.subprocess
def test_process_exits_soon_after_close(bots: tuple[BotServer, BotServer]) -> None:
    """A worker thread blocked on a trickling bot: closing the system lets the process end at once."""
    bot, _ = bots
    code = textwrap.dedent(f"""
        import threading, time
        from parley.engine.systems import build_system
        from parley.engine.types import Message
        s = build_system("remote:url={bot.url}/trickle,timeout=60,retries=0")
        s.load()
        def work():
            try:
                s.respond((Message("user", "hi"),))
            except Exception as e:
                print("failed:", type(e).__name__, flush=True)
        w = threading.Thread(target=work)  # not a daemon: it would keep the process alive
        w.start()
        time.sleep(1.0)
        print("quitting", flush=True)
        s.close()
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    t_quit = None
    for line in proc.stdout:
        if line.startswith("quitting"):
            t_quit = time.perf_counter()
    proc.wait(timeout=30)
    # the trickling bot would hold the thread for its 60 s timeout
    assert t_quit is not None and time.perf_counter() - t_quit < 20
    assert proc.returncode == 0


def test_openai_stream_and_plain(bots: tuple[BotServer, BotServer]) -> None:
    bot, _ = bots
    plain = build_system(f"remote:url={bot.url},api=openai,model=m").respond(HISTORY)
    streamed = build_system(f"remote:url={bot.url},api=openai,model=m,stream=true").respond(HISTORY)
    assert plain.text == streamed.text == "echo: I need a cheap hotel"
    with pytest.raises(SpecError, match="stream"):
        build_system(f"remote:url={bot.url},stream=true")
