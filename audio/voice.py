"""Spoken turns, one path for the TUI's voice mode and ``parley chat --audio-script``.

A spoken turn goes: audio → speech span (Silero VAD, :mod:`parley.audio.listen`) → transcript (Whisper,
deterministic) → the session (rewriters, system; the recording is stored as the user turn's ``audio_in``) →
the reply spoken sentence by sentence (:mod:`parley.audio.speaker`) and saved as the system turn's
``audio_out`` → the stage latencies stored in the system turn's ``internals["voice"]``:

- ``end_to_transcript_ms``: end of speech → transcript ready for the turn: the later of the end-of-turn
  decision (``endpoint_ms``, the silence waited) and the transcript (``asr_ms`` of recogniser time, which
  starts during that silence when ``speculative``)
- ``transcript_to_reply_ms``: transcript → reply text (rewriters, system, storing the turns)
- ``reply_to_audio_ms``: reply text → first audio sample at the output (``tts_first_ms`` of it is synthesis;
  ``tts_ahead_ms`` when the first sentence was made ahead, during the end-of-turn silence: audio.ahead)
- ``end_to_audio_ms``: end of speech → first audio sample, the turn-taking gap the tester hears.

For a spoken script the audio is a file, so there is no real end of speech: ``end_to_transcript_ms`` is the
recogniser's time alone, and ``source`` says ``script``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from parley.audio.asr import SAMPLE_RATE, Transcript

#: the stages stored per turn, in order, with their labels (the latency tables use them)
STAGES = (("end_to_transcript_ms", "end of speech → transcript"),
          ("transcript_to_reply_ms", "transcript → reply text"),
          ("reply_to_audio_ms", "reply text → first audio"),
          ("end_to_audio_ms", "end of speech → first audio"))


def transcriber(asr: Any, *, short_window: bool = True,
                session: Callable[[], Any] | None = None) -> Callable[[np.ndarray], Any]:
    """The recogniser call every spoken turn uses: 16 kHz speech span → Transcript, deterministic (temperature
    0, so the same audio always gives the same text), no second VAD pass (the span is already cut by VAD).

    With ``session`` (a function giving the :class:`parley.engine.session.Session` the turn goes to, or None)
    the transcript is biased towards the names its system knows (:mod:`parley.audio.bias`): Whisper is
    prompted with the dialogue's last turns, given the names it came close to as hotwords, and near-misses
    are snapped to those names; ``Transcript.bias`` keeps what was heard before and what changed. A system
    without a vocabulary is transcribed as without ``session``.

    The whole turn is transcribed: a span with a pause of ``audio.vad.PAUSE_MS`` or more inside it is decoded
    with its pauses shortened (Whisper would otherwise end at the pause and drop the rest), and speech the VAD
    heard after the transcript's last word is decoded on its own and appended. What Whisper made
    up is dropped: a stock phrase ("Thank you.") appended where the VAD heard no speech
    (:func:`parley.audio.cleanup.drop_unsaid`) and a sentence repeated by a decoding loop
    (:func:`parley.audio.cleanup.drop_loops`)."""

    def decode(audio: np.ndarray, **kw: object) -> Transcript:
        tr: Transcript = asr.transcribe(audio, SAMPLE_RATE, vad=False, deterministic=True,
                                        short_window=short_window, **kw)
        return tr

    def plain(audio: np.ndarray, squeeze: bool, **options: object) -> Transcript:
        from parley.audio.cleanup import drop_unsaid

        if squeeze:  # word times, to check that the transcript covers the speech after the pause
            options.update(squeeze_pauses=True, word_probs=True)
        tr = drop_unsaid(decode(audio, **options), audio, lambda **kw: decode(audio, **kw), options)
        return whole(tr, audio, options) if squeeze else tr

    def whole(tr: Transcript, audio: np.ndarray, options: dict[str, object]) -> Transcript:
        """``tr`` with the speech after its last word that Whisper left out decoded on its own and appended
        (Whisper can end a transcript at a pause even when the pause is shortened)."""
        from parley.audio.cleanup import joined, untranscribed
        from parley.audio.vad import has_long_pause, speech_probabilities

        probs = speech_probabilities(audio)  # once: the audio is the same on every round
        for _ in range(3):
            at = untranscribed(tr, probs)
            if at is None:
                break
            cut = max(0, int((at - 0.2) * SAMPLE_RATE))
            rest = decode(audio[cut:], **{**options, "squeeze_pauses": has_long_pause(audio[cut:])})
            if not rest.text:
                break
            tr = joined(tr, rest, cut / SAMPLE_RATE)
        return tr

    def transcribe(audio: np.ndarray) -> Any:
        from parley.audio.cleanup import drop_loops
        from parley.audio.vad import has_long_pause

        tr = recognise(audio, has_long_pause(audio))
        text = drop_loops(tr.text)
        return tr if text == tr.text else replace(tr, text=text)

    def recognise(audio: np.ndarray, squeeze: bool) -> Transcript:
        current = session() if session is not None else None
        if current is None:
            return plain(audio, squeeze)
        from parley.audio.bias import biaser_for, recent_turns

        biaser = biaser_for(getattr(current, "system", None))
        if biaser is None:
            return plain(audio, squeeze)
        score = getattr(asr, "score", None)  # names confirmed by ear when the recogniser can score texts
        by_ear = (lambda texts: score(audio, texts, short_window=short_window)) if score else None
        biased: Transcript = biaser.transcribe(lambda **kw: plain(audio, squeeze, word_probs=True, **kw),
                                               recent_turns(getattr(current, "history", ())), by_ear)
        return biased

    return transcribe


@dataclass(frozen=True)
class SpokenInput:
    """A transcribed utterance ready to become a user turn (``speech_end``, ``transcribed``: monotonic)."""

    text: str
    audio_path: str
    info: dict[str, Any]
    speech_end: float | None
    transcribed: float
    ahead: Any = None  # audio.ahead.AheadReply: the turn and its reply made during the end-of-turn silence


def pending_path() -> str:
    """A fresh WAV path for a recording whose turn is not stored yet (the session moves it to its folder)."""
    from parley.engine.locations import audio_dir, ensure_dir

    return str(ensure_dir(audio_dir() / "pending") / f"{uuid.uuid4().hex}.wav")


def from_heard(heard: Any) -> SpokenInput:
    """A :class:`parley.audio.listen.Heard` as a user turn: audio saved, timings and ASR details kept."""
    from parley.audio.capture import write_wav

    path = write_wav(pending_path(), heard.audio)
    tr = heard.transcript
    info = {"asr": tr.to_json(), "recording": {"seconds": round(heard.audio.size / SAMPLE_RATE, 3),
                                               "sample_rate": SAMPLE_RATE},
            "voice": {**heard.timings(), "speculative": heard.speculative, "source": "microphone"}}
    ahead = None
    if getattr(heard, "ahead", None) is not None:
        from parley.audio.ahead import AheadReply

        ahead = AheadReply(heard.ahead)
    return SpokenInput(tr.text.strip(), path, info, heard.speech_end, heard.ready, ahead)


def from_file(path: str, transcribe: Callable[[np.ndarray], Any]) -> SpokenInput:
    """A WAV file (any rate and length) as a user turn: the same speech span and recogniser as the mic."""
    from parley.audio.asr import load_audio
    from parley.audio.listen import speech_span

    audio = load_audio(path)
    span = speech_span(audio)
    t0 = time.monotonic()
    tr = transcribe(span)
    done = time.monotonic()
    info = {"asr": tr.to_json(), "recording": {"seconds": round(audio.size / SAMPLE_RATE, 3),
                                               "speech_s": round(span.size / SAMPLE_RATE, 3),
                                               "sample_rate": SAMPLE_RATE, "file": str(path)},
            "voice": {"end_to_transcript_ms": round((done - t0) * 1000, 1), "asr_ms": tr.latency_ms,
                      "source": "script"}}
    return SpokenInput(tr.text.strip(), str(path), info, t0, done)


def reply_timings(spoken_in: SpokenInput | None, replied: float, spoken: Any) -> dict[str, Any]:
    """The stage latencies of one exchange (see the module doc); ``replied`` is when the reply text was ready,
    ``spoken`` the :class:`parley.audio.speaker.SpokenReply` (its timings are merged in)."""
    out: dict[str, Any] = {}
    first = spoken.first_audio if spoken.first_audio is not None else spoken.first_ready
    if spoken_in is not None:
        voice = spoken_in.info.get("voice", {})
        keys = ("end_to_transcript_ms", "endpoint_ms", "endpoint_lag_ms", "asr_ms", "speculative", "source")
        out.update({k: voice[k] for k in keys if k in voice})
        out["transcript_to_reply_ms"] = round((replied - spoken_in.transcribed) * 1000, 1)
        if spoken_in.speech_end is not None and first is not None:
            out["end_to_audio_ms"] = round((first - spoken_in.speech_end) * 1000, 1)
    out.update(spoken.timings())
    if first is not None:  # from the reply text, not from when speaking was asked for (a hand-off later)
        out["reply_to_audio_ms"] = round((first - replied) * 1000, 1)
    return out


def format_timings(voice: dict[str, Any]) -> list[str]:
    """The internals view's lines for a turn's voice latencies (aligned with the other internals)."""
    def ms(key: str) -> str | None:
        v = voice.get(key)
        return f"{v:.0f} ms" if isinstance(v, int | float) and not isinstance(v, bool) else None

    chain = [f"{label} {ms(key)}" for key, label in (("end_to_transcript_ms", "speech end → transcript"),
                                                     ("transcript_to_reply_ms", "→ reply"),
                                                     ("reply_to_audio_ms", "→ first audio")) if ms(key)]
    if ms("end_to_audio_ms"):
        chain.append(f"(total {ms('end_to_audio_ms')})")
    parts = []
    if ms("endpoint_ms"):
        parts.append(f"silence waited {ms('endpoint_ms')}")
    if ms("asr_ms"):
        parts.append(f"ASR {ms('asr_ms')}" + (" (speculative)" if voice.get("speculative") else ""))
    if ms("tts_ahead_ms"):
        parts.append(f"reply made ahead (first sentence in {ms('tts_ahead_ms')}, during the silence)")
    elif ms("tts_first_ms"):
        parts.append(f"first sentence synthesised in {ms('tts_first_ms')}")
    if voice.get("barge_in"):
        parts.append(f"barge-in after {voice.get('played_s', 0):.1f} s")
    lines = [f"{'voice':<11}{' '.join(chain)}"] if chain else []
    return lines + ([f"{'':<11}{' · '.join(parts)}"] if parts else [])
