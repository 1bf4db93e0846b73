"""Spoken turns end to end without a sound card: ``parley chat --audio-script`` feeds WAV files (our
restaurant dialogue, piper + background noise) through VAD → Whisper → rewriters → system → spoken reply. The
stored session's audio_in/audio_out files exist under the session folder, named by turn, and decode; the stage
latencies are stored; a second run gives the same transcripts; ``parley score --latency`` tables them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import soundfile
from click.testing import CliRunner

from parley.audio.wer import normalise
from parley.cli import main
from parley.store import open_store
from tests.spoken import RESTAURANT, restaurant_wavs


@pytest.fixture(scope="module")
def wavs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return restaurant_wavs(tmp_path_factory.mktemp("spoken"))


def run_script(db: Path, source: str, *extra: str) -> list[dict]:
    result = CliRunner().invoke(main, ["chat", "--audio-script", source, "--db", str(db), "--seed", "1",
                                       "--json", *extra])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_a_spoken_script_is_a_stored_voice_session(wavs: list[Path], tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    turns = run_script(db, str(wavs[0].parent))
    assert [normalise(t["user"]) for t in turns] == [normalise(s) for s in RESTAURANT]
    assert "north" in turns[0]["system"].lower() and "01223" in turns[2]["system"]
    store = open_store(db)
    session = store.sessions()[0]
    rows = store.turns(session.id)
    user = [r for r in rows if r.role == "user"]
    system = [r for r in rows if r.role == "system"]
    assert len(user) == len(system) == 3
    for u, s, wav in zip(user, system, wavs, strict=True):
        assert u.audio_in == str(Path(u.audio_in).parent / f"{u.index:04d}-user.wav")
        assert Path(u.audio_in).parent.name == session.id
        assert Path(u.audio_in).read_bytes() == wav.read_bytes()  # a copy; the tester's file stays put
        assert wav.exists()
        assert s.audio_out == str(Path(u.audio_in).parent / f"{s.index:04d}-system.wav")
        for f in (u.audio_in, s.audio_out):
            data, sr = soundfile.read(f, dtype="float32")
            assert sr in (16000, 22050) and data.size > sr  # decodes, and is at least a second of sound
            assert abs(data).max() > 0.05
        voice = s.internals["voice"]
        assert voice["source"] == "script" and voice["sentences"] >= 1 and voice["played"] is False
        for key in ("end_to_transcript_ms", "transcript_to_reply_ms", "reply_to_audio_ms", "asr_ms"):
            assert voice[key] >= 0
        assert u.internals["input"]["asr"]["model"] == "tiny.en"


def test_a_second_run_gives_the_same_transcripts(wavs: list[Path], tmp_path: Path) -> None:
    listing = tmp_path / "turns.txt"
    listing.write_text("# the restaurant dialogue\n" + "\n".join(str(w) for w in wavs) + "\n",
                       encoding="utf-8")
    first = run_script(tmp_path / "a.db", str(listing))
    second = run_script(tmp_path / "b.db", str(listing))
    assert [t["user"] for t in first] == [t["user"] for t in second]
    assert [t["system"] for t in first] == [t["system"] for t in second]


def test_latency_table_from_stored_voice_turns(wavs: list[Path], tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    run_script(db, str(wavs[0].parent))
    result = CliRunner().invoke(main, ["score", "--latency", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)["latency"]
    rows = {r["stage"]: r for r in table["stages"]}
    assert rows["end_to_transcript_ms"]["n"] == 3 and rows["reply_to_audio_ms"]["n"] == 3
    assert rows["transcript_to_reply_ms"]["median"] <= rows["transcript_to_reply_ms"]["p90"]
    text = CliRunner().invoke(main, ["score", "--latency", "--db", str(db)])
    assert text.exit_code == 0 and "end of speech → transcript" in text.stdout


@pytest.mark.parametrize(("setup", "message"), [
    (lambda d: d / "missing", "no such folder or list file"),
    (lambda d: d, "no .wav/.flac/.ogg files"),
    (lambda d: (d / "l.txt").write_text("nope.wav\n") and d / "l.txt", "l.txt:1: nope.wav does not exist"),
])
def test_audio_script_errors_are_one_line(  # type: ignore[no-untyped-def]
        tmp_path: Path, setup, message: str) -> None:
    result = CliRunner().invoke(main, ["chat", "--audio-script", str(setup(tmp_path)), "--db",
                                       str(tmp_path / "x.db")])
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "x.db").exists()


def test_script_and_audio_script_exclude_each_other(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["chat", "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 2 and "--script FILE or --audio-script" in result.output


def test_adopt_audio_moves_parleys_own_files_copies_others_and_never_overwrites(tmp_path: Path) -> None:
    from parley.audio.voice import pending_path
    from parley.engine.locations import adopt_audio, audio_dir

    own = Path(pending_path())
    own.write_bytes(b"RIFF-own")
    placed = adopt_audio(own, "s1", 0)
    assert placed == str(audio_dir() / "s1" / "0000-user.wav") and not own.exists()
    theirs = tmp_path / "mine.wav"
    theirs.write_bytes(b"RIFF-theirs")
    assert adopt_audio(theirs, "s1", 2) == str(audio_dir() / "s1" / "0002-user.wav") and theirs.exists()
    again = tmp_path / "other.wav"
    again.write_bytes(b"RIFF-other")
    assert adopt_audio(again, "s1", 2) == str(again)  # the turn's file exists: keep both where they are
    assert Path(audio_dir() / "s1" / "0002-user.wav").read_bytes() == b"RIFF-theirs"


def test_set_turn_audio_merges_internals(tmp_path: Path) -> None:
    from parley.store import StoreError
    from parley.store.records import SessionRecord, TurnRecord

    store = open_store(tmp_path / "s.db")
    sess = store.add_session(SessionRecord())
    turn = store.add_turn(TurnRecord(session_id=sess.id, index=1, role="system", text="hi",
                                     internals={"state": {"x": 1}}))
    store.set_turn_audio(turn.id, "/a/0001-system.wav", {"voice": {"reply_to_audio_ms": 80.0}})
    got = store.turns(sess.id)[0]
    assert got.audio_out == "/a/0001-system.wav"
    assert got.internals == {"state": {"x": 1}, "voice": {"reply_to_audio_ms": 80.0}}
    with pytest.raises(StoreError):
        store.set_turn_audio("nope", None)
