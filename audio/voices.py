"""The speech synthesiser backends behind :func:`audio.tts.get_tts`: piper, espeak-ng and Coqui TTS.

Use them through ``audio.tts`` (which re-exports the classes); heavy imports (piper, TTS) stay inside methods.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from parley.engine.types import LoadError
from parley.progress import Progress

GAP_S = 0.12  # silence between sentences
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def join_sentences(pieces: Iterable[np.ndarray], sample_rate: int) -> np.ndarray:
    """Sentences joined with a short silence between them, as one float32 array."""
    gap = np.zeros(int(sample_rate * GAP_S), dtype=np.float32)
    out: list[np.ndarray] = []
    for audio in pieces:
        if out:
            out.append(gap)
        out.append(audio)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (after . ! ? followed by a space), for backends without their own split."""
    return [s for s in (p.strip() for p in _SENTENCE_END.split(text)) if s]


_CLAUSE_END = re.compile(r"[,;:\u2014]\s+")
_LONG_NUMBER = re.compile(r"\s(?=\S*\d{5})")  # before a phone number, a postcode…: a natural place to pause


def first_clause(text: str, *, min_words: int = 7) -> tuple[str, str]:
    """``text`` cut after its first clause when its first sentence is long (more than ``min_words`` words),
    so a reply's first piece is short and its synthesis quick: after the first , ; : or dash that leaves at
    least three words before and two after it in that sentence, else before a long number. ``(text, "")``
    when there is no such place."""
    sentence = next(iter(split_sentences(text)), "")
    if len(sentence.split()) <= min_words:
        return text, ""
    offset = text.find(sentence)
    for m in (*_CLAUSE_END.finditer(sentence), *_LONG_NUMBER.finditer(sentence)):
        head, tail = sentence[:m.start() + 1].strip(), sentence[m.end():]
        if len(head.split()) >= 3 and len(tail.split()) >= (2 if m.group().strip() else 1):
            cut = offset + m.end()
            return text[:cut].strip(), text[cut:].strip()
    return text, ""


def _check_speed(speed: float) -> float:
    speed = float(speed)
    if not 0.25 <= speed <= 4.0:
        raise ValueError(f"speed must be between 0.25 and 4.0, got {speed}")
    return speed


def _piper_voice(piper_voice: Any, onnx: Path, cfg: Path) -> Any:
    """``PiperVoice.load`` with ONNX Runtime's threads not spinning while they wait for work: on a shared
    2-core machine spinning threads fight the other jobs for the cores (measured at load 6: a first clause
    took 525 ms median with spinning, 334 ms without; bench/results/audio.md)."""
    import json

    import onnxruntime
    from piper.config import PiperConfig

    options = onnxruntime.SessionOptions()
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        config = PiperConfig.from_dict(json.loads(cfg.read_text(encoding="utf-8")))
        session = onnxruntime.InferenceSession(str(onnx), sess_options=options,
                                               providers=["CPUExecutionProvider"])
        return piper_voice(config=config, session=session)
    except (ImportError, TypeError, AttributeError):  # a piper whose internals moved: its own loader
        return piper_voice.load(str(onnx), config_path=str(cfg))


class PiperTTS:
    """piper-tts with an ONNX voice (default: the bundled en_US joe medium)."""

    name = "piper"

    def __init__(self, model_path: str | None = None, *, deterministic: bool = False,
                 cache_size: int = 256) -> None:
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
        from parley.audio.models import _say, piper_voice_files

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
            self._voice = _piper_voice(PiperVoice, onnx, cfg)
        except Exception as e:
            raise LoadError(f"could not load piper voice {onnx.name}: {e}") from None
        self.sample_rate = int(self._voice.config.sample_rate)
        _say(progress, "warming up piper voice…")
        self.synthesize("Hello.")  # the first synthesis allocates buffers: pay here, not on the first reply
        return self

    def synthesize(self, text: str, speed: float = 1.0) -> tuple[np.ndarray, int]:
        """Float32 mono audio in [-1, 1] and its sample rate; ``speed`` > 1 speaks faster (piper length
        scale)."""
        self.load()
        return join_sentences(self.stream(text, speed), self.sample_rate), self.sample_rate

    def stream(self, text: str, speed: float = 1.0) -> Iterator[np.ndarray]:
        """The audio of ``text`` sentence by sentence (piper's sentence split), each made when asked for."""
        from piper import SynthesisConfig

        speed = _check_speed(speed)
        self.load()
        cfg = SynthesisConfig(length_scale=float(self._voice.config.length_scale) / speed)
        if self.deterministic:
            cfg.noise_scale, cfg.noise_w_scale = 0.0, 0.0
        with self._lock:
            sentences = [ph for ph in self._voice.phonemize(text) if ph]
        for phonemes in sentences:
            with self._lock:
                audio = self._sentence(phonemes, cfg, speed)
            yield audio

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
    """The espeak-ng command-line synthesiser (Debian package ``espeak-ng``); robotic but always
    deterministic."""

    name = "espeak"

    def __init__(self, voice: str = "en-us", wpm: int = 165) -> None:
        self.voice = voice
        self.wpm = wpm
        self.sample_rate = 22050
        self.note: str | None = None
        self._exe: str | None = None

    def load(self, progress: Progress = None) -> EspeakTTS:
        if self._exe is None:
            exe = shutil.which("espeak-ng") or shutil.which("espeak")
            if exe is None:
                raise LoadError("espeak-ng is not installed (sudo apt install espeak-ng)")
            self._exe = exe
        return self

    def stream(self, text: str, speed: float = 1.0) -> Iterator[np.ndarray]:
        """Sentence by sentence (the sample rate is ``sample_rate`` once the first sentence is made)."""
        for sentence in split_sentences(text):
            audio, self.sample_rate = self.synthesize(sentence, speed)
            yield audio

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
            missing = isinstance(e, ModuleNotFoundError)
            detail = "it is not installed" if missing else f"it does not import ({e})"
            raise LoadError(f"Coqui TTS is an optional backend and {detail}; it also downloads its voices at "
                            "run time. Use piper (default) or espeak.") from None
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
