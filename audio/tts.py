"""Text to speech: piper (default, bundled voice en_US joe medium), espeak-ng (fallback), Coqui TTS (optional).

``get_tts("piper")`` returns a cached, loaded :class:`TTS`; when piper cannot load it falls back to espeak-ng and
logs why (the reason is kept in ``tts.note``). Coqui ``TTS`` is an optional extra that downloads its models at
run time and does not import against the torch used here: asking for it gives one clear message and, with
``fallback=True`` (the default), the piper voice instead. ``speak()`` never raises on audio errors.

piper is deterministic with ``noise_scale=0, noise_w_scale=0`` (``deterministic=True``); the channel and the tests
use that. Synthesised sentences are kept in a small LRU cache keyed by phonemes and speed, so sentences that come
back in a dialogue ("Yes, please.") cost nothing the second time.
"""

from __future__ import annotations

import io
import logging
import shutil
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from engine.types import LoadError

log = logging.getLogger(__name__)
Progress = Callable[[str], None] | None
BACKENDS = ("piper", "espeak", "coqui")
_GAP_S = 0.12  # silence between sentences


class TTS(Protocol):
    """A loaded speech synthesiser. ``note`` says why a fallback is in use (None otherwise)."""

    name: str
    note: str | None

    def synthesize(self, text: str, speed: float = 1.0) -> tuple[np.ndarray, int]: ...


def _check_speed(speed: float) -> float:
    speed = float(speed)
    if not 0.25 <= speed <= 4.0:
        raise ValueError(f"speed must be between 0.25 and 4.0, got {speed}")
    return speed


class PiperTTS:
    """piper-tts with an ONNX voice (default: the bundled en_US joe medium)."""

    name = "piper"

    def __init__(self, model_path: str | None = None, *, deterministic: bool = False, cache_size: int = 256) -> None:
        self.model_path = model_path
        self.deterministic = deterministic
        self.note: str | None = None
        self.sample_rate = 22050
        self._voice: Any = None
        self._cache: OrderedDict[tuple[Any, ...], np.ndarray] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def load(self, progress: Progress = None) -> PiperTTS:
        if self._voice is not None:
            return self
        from audio.models import _say, piper_voice_files

        if self.model_path:
            onnx, cfg = Path(self.model_path), Path(f"{self.model_path}.json")
            if not onnx.is_file() or not cfg.is_file():
                raise LoadError(f"piper voice {onnx} (with {cfg.name}) does not exist")
        else:
            onnx, cfg = piper_voice_files()
        _say(progress, "loading piper voice…")
        try:
            from piper import PiperVoice
        except Exception as e:
            raise LoadError(f"piper-tts cannot be imported ({e}); pip install piper-tts") from None
        try:
            self._voice = PiperVoice.load(str(onnx), config_path=str(cfg))
        except Exception as e:
            raise LoadError(f"could not load piper voice {onnx.name}: {e}") from None
        self.sample_rate = int(self._voice.config.sample_rate)
        return self

    def synthesize(self, text: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        """Float32 mono audio in [-1, 1] and its sample rate; ``speed`` > 1 speaks faster (piper length scale)."""
        from piper import SynthesisConfig

        speed = _check_speed(speed)
        self.load()
        cfg = SynthesisConfig(length_scale=float(self._voice.config.length_scale) / speed)
        if self.deterministic:
            cfg.noise_scale, cfg.noise_w_scale = 0.0, 0.0
        pieces: list[np.ndarray] = []
        gap = np.zeros(int(self.sample_rate * _GAP_S), dtype=np.float32)
        with self._lock:
            for phonemes in self._voice.phonemize(text):
                if not phonemes:
                    continue
                audio = self._sentence(phonemes, cfg, speed)
                if pieces:
                    pieces.append(gap)
                pieces.append(audio)
        if not pieces:
            return np.zeros(0, dtype=np.float32), self.sample_rate
        return np.concatenate(pieces), self.sample_rate

    def _sentence(self, phonemes: list[str], cfg: Any, speed: float) -> np.ndarray:
        key = (tuple(phonemes), round(speed, 4))
        cached = self._cache.get(key) if self.deterministic else None
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        ids = self._voice.phonemes_to_ids(phonemes)
        audio = np.asarray(self._voice.phoneme_ids_to_audio(ids, cfg), dtype=np.float32).reshape(-1)
        peak = float(np.max(np.abs(audio))) if audio.size else 0.0
        audio = audio / peak if peak > 1e-8 else np.zeros_like(audio)
        audio = np.clip(audio, -1.0, 1.0).astype(np.float32)
        if self.deterministic:  # only deterministic output may be reused
            self._cache[key] = audio
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return audio


class EspeakTTS:
    """The espeak-ng command-line synthesiser (Debian package ``espeak-ng``); robotic but always deterministic."""

    name = "espeak"

    def __init__(self, voice: str = "en-us", wpm: int = 165) -> None:
        self.voice = voice
        self.wpm = wpm
        self.note: str | None = None
        self._exe: str | None = None

    def load(self, progress: Progress = None) -> EspeakTTS:
        if self._exe is None:
            exe = shutil.which("espeak-ng") or shutil.which("espeak")
            if exe is None:
                raise LoadError("espeak-ng is not installed (sudo apt install espeak-ng)")
            self._exe = exe
        return self

    def synthesize(self, text: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        import soundfile

        speed = _check_speed(speed)
        self.load()
        assert self._exe is not None
        try:
            out = subprocess.run([self._exe, "--stdout", "-v", self.voice, "-s", str(int(self.wpm * speed)),
                                  "--", text], capture_output=True, timeout=60, check=True).stdout
            data, sr = soundfile.read(io.BytesIO(out), dtype="float32", always_2d=False)
        except (OSError, subprocess.SubprocessError, RuntimeError) as e:
            raise RuntimeError(f"espeak-ng failed: {e}") from None
        audio = np.asarray(data, dtype=np.float32)
        peak = float(np.max(np.abs(audio))) if audio.size else 0.0
        return (audio / peak * 0.95 if peak > 1e-8 else audio), int(sr)


class CoquiTTS:
    """Coqui ``TTS`` (optional extra ``parley-tod[coqui]``); needs a network the first time for its model."""

    name = "coqui"

    def __init__(self, model_name: str = "tts_models/en/ljspeech/vits") -> None:
        self.model_name = model_name
        self.note: str | None = None
        self._tts: Any = None

    def load(self, progress: Progress = None) -> CoquiTTS:
        if self._tts is not None:
            return self
        try:
            from TTS.api import TTS as CoquiAPI  # noqa: N811
        except Exception as e:
            detail = "it is not installed" if isinstance(e, ModuleNotFoundError) else f"it does not import ({e})"
            raise LoadError(f"Coqui TTS is an optional backend and {detail}; it also downloads its voices at run "
                            "time. Use piper (default) or espeak.") from None
        try:
            self._tts = CoquiAPI(self.model_name, progress_bar=False)
        except Exception as e:
            raise LoadError(f"Coqui TTS could not load {self.model_name} (it downloads models at run time): "
                            f"{str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
        return self

    def synthesize(self, text: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        self.load()
        wav = self._tts.tts(text, speed=_check_speed(speed))
        sr = int(getattr(self._tts.synthesizer, "output_sample_rate", 22050))
        return np.asarray(wav, dtype=np.float32), sr


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

    With ``fallback`` a backend that cannot load is replaced (piper → espeak; coqui → piper → espeak), the reason
    is logged and kept in the returned object's ``note``; :class:`LoadError` only when nothing works (or, without
    ``fallback``, when the backend itself fails). ``deterministic`` turns piper's sampling noise off.
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
        return self._inner.synthesize(text, speed)  # type: ignore[no-any-return]


def write_wav(path: str | Path, audio: np.ndarray, sample_rate: int) -> str:
    """Save float32 audio as 16-bit PCM WAV (parent folders created); returns the path."""
    import soundfile

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(str(p), np.clip(audio, -1.0, 1.0), int(sample_rate), subtype="PCM_16")
    return str(p)


def play(audio: np.ndarray, sample_rate: int) -> bool:
    """Play audio on the default output device and wait; False (logged) when there is none. Never raises."""
    from audio.devices import AudioUnavailable, check_output, import_sounddevice

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
        from audio.devices import import_sounddevice

        import_sounddevice().stop()
    except Exception:  # noqa: BLE001 - nothing playing, or no audio at all
        log.debug("stop_playback: nothing to stop")


def speak(text: str, backend: str = "piper", out_path: str | None = None) -> str | None:
    """Synthesise ``text``, save it to ``out_path`` (WAV) if given and play it if an output device exists.

    Returns the saved path (None when not saved or on failure). Never raises on audio or model errors: they are
    logged.
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
