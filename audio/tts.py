"""Text to speech: piper (default, bundled voice en_US joe medium), espeak-ng (fallback), Coqui TTS
(optional).

``get_tts("piper")`` returns a cached, loaded :class:`TTS`; when piper cannot load it falls back to espeak-ng
and logs why (the reason is kept in ``tts.note``). Coqui ``TTS`` is an optional extra that downloads its
models at run time and does not import against the torch used here: asking for it gives one clear message and,
with ``fallback=True`` (the default), the piper voice instead. ``speak()`` never raises on audio errors.

piper is deterministic with ``noise_scale=0, noise_w_scale=0`` (``deterministic=True``); the channel and the
tests use that. Synthesised sentences are kept in a small LRU cache keyed by phonemes and speed, so sentences
that come back in a dialogue ("Yes, please.") cost nothing the second time.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import numpy as np

from parley.audio.capture import write_wav
from parley.audio.voices import CoquiTTS, EspeakTTS, PiperTTS, first_clause
from parley.engine.types import LoadError
from parley.progress import Progress

__all__ = ["BACKENDS", "TTS", "CoquiTTS", "EspeakTTS", "PiperTTS", "get_tts", "play", "sentence_stream",
           "speak", "stop_playback", "write_wav"]

log = logging.getLogger(__name__)
BACKENDS = ("piper", "espeak", "coqui")


class TTS(Protocol):
    """A loaded speech synthesiser. ``note`` says why a fallback is in use (None otherwise)."""

    name: str
    note: str | None

    def synthesize(self, text: str, speed: float = 1.0) -> tuple[np.ndarray, int]: ...


_FACTORIES: dict[str, Callable[[bool], Any]] = {
    "piper": lambda det: PiperTTS(deterministic=det),
    "espeak": lambda det: EspeakTTS(),
    "coqui": lambda det: CoquiTTS(),
}
_FALLBACKS = {"piper": ("espeak",), "coqui": ("piper", "espeak"), "espeak": ()}
_cache: dict[tuple[str, bool], Any] = {}
_cache_lock = threading.Lock()


def _load_one(backend: str, deterministic: bool, progress: Progress) -> Any:
    key = (backend, deterministic)
    with _cache_lock:
        tts = _cache.get(key)
        if tts is None:
            tts = _FACTORIES[backend](deterministic)
            twin: Any = _cache.get((backend, not deterministic))
            if backend == "piper" and getattr(twin, "_voice", None) is not None:  # one ONNX session for both
                tts._voice, tts.sample_rate = twin._voice, twin.sample_rate
    tts.load(progress)
    with _cache_lock:
        _cache.setdefault(key, tts)
        return _cache[key]


def get_tts(backend: str = "piper", progress: Progress = None, *, fallback: bool = True,
            deterministic: bool = False) -> Any:
    """A loaded, cached synthesiser for ``backend`` ("piper" | "espeak" | "coqui").

    With ``fallback`` a backend that cannot load is replaced (piper → espeak; coqui → piper → espeak), the
    reason is logged and kept in the returned object's ``note``; :class:`LoadError` only when nothing works
    (or, without ``fallback``, when the backend itself fails). ``deterministic`` turns piper's sampling noise
    off.
    """
    if backend not in _FACTORIES:
        raise LoadError(f"unknown TTS backend {backend!r} (choose from {', '.join(BACKENDS)})")
    try:
        return _load_one(backend, deterministic, progress)
    except LoadError as first:
        if not fallback:
            raise
        reasons = [str(first)]
        for alt in _FALLBACKS[backend]:
            try:
                tts = _load_one(alt, deterministic, progress)
            except LoadError as e:
                reasons.append(str(e))
                continue
            note = f"{backend} unavailable, using {alt}: {first}"
            log.warning("TTS fallback: %s", note)
            return _Noted(tts, note)
        raise LoadError("; ".join(reasons)) from None


class _Noted:
    """A cached synthesiser seen through a fallback: same audio, plus the reason in ``note``."""

    def __init__(self, inner: Any, note: str) -> None:
        self._inner = inner
        self.name: str = inner.name
        self.note: str | None = note

    def synthesize(self, text: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        return self._inner.synthesize(text, speed)

    def stream(self, text: str, speed: float = 1.0) -> Iterator[np.ndarray]:
        return sentence_stream(self._inner, text, speed)

    @property
    def sample_rate(self) -> int:
        return int(getattr(self._inner, "sample_rate", 22050))


def sentence_stream(tts: Any, text: str, speed: float = 1.0, *,
                    quick_start: bool = False) -> Iterator[np.ndarray]:
    """``text`` spoken sentence by sentence by any backend (one piece when it cannot split); the sample rate
    is ``tts.sample_rate`` once the first piece is made. ``quick_start``: a long first sentence is cut after
    its first clause (:func:`parley.audio.voices.first_clause`), so the first piece is quick to make."""
    head, tail = first_clause(text) if quick_start else (text, "")
    if tail:
        yield from sentence_stream(tts, head, speed)
        yield from sentence_stream(tts, tail, speed)
        return
    stream = getattr(tts, "stream", None)
    if stream is not None:
        yield from stream(text, speed)
        return
    audio, sr = tts.synthesize(text, speed)
    tts.sample_rate = sr
    yield audio


def play(audio: np.ndarray, sample_rate: int) -> bool:
    """Play audio on the default output device and wait; False (logged) when there is none. Never raises."""
    from parley.audio.devices import AudioUnavailable, check_output, import_sounddevice

    status = check_output()
    if not status.available:
        log.info("not playing audio: %s", status.reason)
        return False
    try:
        sd = import_sounddevice()
        sd.play(audio, int(sample_rate))
        sd.wait()
        return True
    except (AudioUnavailable, Exception) as e:  # noqa: BLE001 - audio errors must never crash a session
        log.warning("audio playback failed: %s", e)
        return False


def stop_playback() -> None:
    """Stop whatever :func:`play` is playing (from another thread); never raises."""
    try:
        from parley.audio.devices import import_sounddevice

        import_sounddevice().stop()
    except Exception:  # noqa: BLE001 - nothing playing, or no audio at all
        log.debug("stop_playback: nothing to stop")


def speak(text: str, backend: str = "piper", out_path: str | None = None) -> str | None:
    """Synthesise ``text``, save it to ``out_path`` (WAV) if given and play it if an output device exists.

    Returns the saved path (None when not saved or on failure). Never raises on audio or model errors: they
    are logged.
    """
    try:
        tts = get_tts(backend)
        audio, sr = tts.synthesize(text)
    except Exception as e:  # noqa: BLE001
        log.warning("could not synthesise speech: %s", e)
        return None
    saved: str | None = None
    if out_path:
        try:
            saved = write_wav(out_path, audio, sr)
        except Exception as e:  # noqa: BLE001
            log.warning("could not save %s: %s", out_path, e)
    if audio.size:
        play(audio, sr)
    return saved
