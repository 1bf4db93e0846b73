"""The real TTS → ASR channel, rewriter ``asr-real`` (LAUG's speech-recognition perturbation, done for real).

``asr-real:tts=piper,model=tiny.en,snr=20,speed=1.0,fast=true`` synthesises the user's text (piper with its
sampling noise off, so the audio is deterministic), optionally adds white noise at ``snr`` dB (drawn from the
step's seeded ``ctx.rng``) and changes the speaking rate (``speed``), then transcribes it with faster-whisper
at temperature 0 (``fast``: with a short encoder window, see :mod:`audio.asr`). The transcript is the
rewritten text; ``info`` keeps the transcript details (segments, average log-probability, timings, the TTS
actually used); ``changes`` lists the slot values of ``ctx.spans`` that did not survive.

LAUG (Liu et al., 2021) used gTTS → DeepSpeech2; here both ends run offline on the bundled models. Models load
on the first rewrite, or earlier with :meth:`RealASRChannel.load` from a worker.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from typing import Any, ClassVar, Literal

import numpy as np

from parley.engine.params import Field, Params
from parley.engine.rewrite.base import RewriteContext, WithParams
from parley.engine.spec import SpecError
from parley.engine.types import Change, Rewrite, RewriteInfo, Span
from parley.jsontypes import as_json_object
from parley.params import Text
from parley.text import tokens

_MODELS = ("tiny.en", "base")


class RealASRParams(Params):
    UNKNOWN: ClassVar[str] = "unknown parameter"

    tts: Literal["piper", "espeak", "coqui"] = Field(
        "piper", description="speech synthesiser (piper voice; espeak-ng; coqui if installed)")
    model: Text = Field("tiny.en",
                        description="Whisper model: bundled tiny.en or base (or a CTranslate2 folder)",
                        json_schema_extra={"choices": list(_MODELS)})
    snr: float | None = Field(
        None, ge=-10.0, le=60.0,
        description="white noise added at this signal-to-noise ratio in dB (none = clean)")
    speed: float = Field(1.0, ge=0.5, le=2.0,
                         description="speaking rate (1.0 = the voice's own; 1.3 = 30% faster)")
    keep_audio: bool = Field(False, description="save each synthesised utterance as WAV under the data dir")
    fast: bool = Field(True, description="short Whisper window (max(10 s, audio+1 s), not 30 s): 2-3x faster "
                                         "ASR, 1-2 points more WER")


class RealASRChannel(WithParams[RealASRParams]):
    """Synthesise → (noise, speed) → transcribe. Deterministic for a given seed."""

    name = "asr-real"
    PARAMS: ClassVar[type[Params]] = RealASRParams

    def __init__(self, **given: object) -> None:
        self.p = RealASRParams.from_spec(self.name, given)
        if not self.p.model.strip():
            raise SpecError(
                f"asr-real: model must be tiny.en, base or a CTranslate2 folder, got {self.p.model!r}")
        self._tts: Any = None
        self._asr: Any = None

    def load(self, progress: Callable[[str], None] | None = None) -> RealASRChannel:
        """Load the synthesiser and the recogniser (slow the first time; call from a worker thread).

        Raises :class:`~engine.types.LoadError` with a clear message when neither TTS backend nor the Whisper
        model can be loaded.
        """
        from parley.audio.asr import get_asr
        from parley.audio.tts import get_tts

        if self._tts is None:
            self._tts = get_tts(self.p.tts, progress, deterministic=True)
        if self._asr is None:
            self._asr = get_asr(self.p.model, progress)
        return self

    def rewrite(self, text: str, ctx: RewriteContext) -> Rewrite:
        p = self.p
        if not text.strip():
            return Rewrite(self.name, self.params, ctx.seed, text, text, tuple(ctx.spans), (),
                           RewriteInfo(transcript=text))
        self.load()
        from parley.audio.asr import SAMPLE_RATE, resample

        t0 = time.perf_counter()
        audio, sr = self._tts.synthesize(text, speed=p.speed)
        tts_ms = (time.perf_counter() - t0) * 1000
        audio = resample(audio, sr, SAMPLE_RATE)
        if p.snr is not None:
            audio = add_noise(audio, p.snr, np.random.default_rng(ctx.rng.getrandbits(63)))
        audio_path = self._save(text, audio, ctx.seed) if p.keep_audio else None
        tr = self._asr.transcribe(audio, SAMPLE_RATE, vad=False, deterministic=True, short_window=p.fast)
        after = tr.text
        lost, kept = survival(ctx.spans, after)
        info = RewriteInfo(
            transcript=tr.text, segments=[as_json_object(s) for s in tr.segments], avg_logprob=tr.avg_logprob,
            audio_seconds=tr.audio_seconds, tts_ms=round(tts_ms, 1), asr_ms=tr.latency_ms,
            total_ms=round((time.perf_counter() - t0) * 1000, 1), tts=self._tts.name,
            model=tr.model, snr=p.snr, speed=p.speed, fast=p.fast)
        if getattr(self._tts, "note", None):
            info["tts_note"] = self._tts.note
        if audio_path:
            info["audio_path"] = audio_path
        return Rewrite(self.name, self.params, ctx.seed, text, after, kept, lost, info)

    def _save(self, text: str, audio: np.ndarray, seed: int) -> str | None:
        from parley.audio.tts import write_wav
        from parley.engine.locations import audio_dir

        digest = hashlib.sha1(f"{seed}:{self.params}:{text}".encode()).hexdigest()[:16]
        try:
            return write_wav(audio_dir() / "asr-real" / f"{digest}.wav", audio, 16000)
        except OSError:
            return None


def add_noise(audio: np.ndarray, snr_db: float, rng: np.random.Generator) -> np.ndarray:
    """White Gaussian noise at ``snr_db`` relative to the power of the speech (samples above −40 dB of the
    peak)."""
    if audio.size == 0:
        return audio
    peak = float(np.max(np.abs(audio)))
    active = audio[np.abs(audio) > peak * 0.01] if peak > 0 else audio
    power = float(np.mean(np.square(active, dtype=np.float64))) if active.size else 0.0
    noise_power = power / (10.0 ** (snr_db / 10.0))
    noisy = audio + rng.normal(0.0, np.sqrt(noise_power), audio.size).astype(np.float32)
    return np.clip(noisy, -1.0, 1.0).astype(np.float32)


_DIGIT_SEP = re.compile(r"(?<=\d)[.:\s](?=\d)")


def _norm_tokens(text: str) -> list[str]:
    from parley.audio.wer import normalise

    return tokens(_DIGIT_SEP.sub("", normalise(text)))


def _present(value: list[str], words: list[str]) -> bool:
    if not value:
        return True
    joined = "".join(value)
    n = len(value)
    for size in {max(1, n - 1), n, n + 1}:
        for i in range(0, len(words) - size + 1):
            window = words[i:i + size]
            if window == value or "".join(window) == joined:
                return True
    return False


def survival(spans: tuple[Span, ...], transcript: str) -> tuple[tuple[Change, ...], tuple[Span, ...]]:
    """``(lost, kept)``: change records for slot values the transcript lost (with the closest words heard, if
    any), and spans of ``transcript`` where values survived verbatim (case-insensitive).

    Values are compared after Whisper-style normalisation, so "seven thirty" keeps "7:30" and "four" keeps
    "4".
    """
    words = _norm_tokens(transcript)
    lost: list[Change] = []
    kept: list[Span] = []
    low = transcript.lower()
    for sp in spans:
        if _present(_norm_tokens(sp.value), words):
            at = low.find(sp.value.lower())
            if at >= 0:
                end = at + len(sp.value)
                kept.append(Span(at, end, sp.slot, transcript[at:end], sp.domain))
            continue
        lost.append({"slot": sp.slot, "before": sp.value, "after": _closest(sp.value, transcript),
                     "kind": "asr"})
    return tuple(lost), tuple(sorted(kept, key=lambda s: s.start))


_WORD = re.compile(r"\S+")


def _closest(value: str, transcript: str) -> str:
    """The words of ``transcript`` that best match ``value`` (rapidfuzz's partial-ratio alignment, widened to
    the words it covers at least half of), or "" when the best match scores below 50."""
    from rapidfuzz import fuzz

    if not value.strip() or not transcript.strip():
        return ""
    al = fuzz.partial_ratio_alignment(value.lower(), transcript.lower())
    if al is None or al.score < 50:
        return ""
    a, b = al.dest_start, al.dest_end  # the aligned span of the transcript (dest is always the second string)
    overlaps = [(min(m.end(), b) - max(m.start(), a), m.start(), m.end())
                for m in _WORD.finditer(transcript) if m.start() < b and m.end() > a]
    if not overlaps:
        return ""
    chosen = [(s, e) for o, s, e in overlaps if 2 * o >= e - s] or [max(overlaps)[1:]]
    return transcript[chosen[0][0]:chosen[-1][1]].strip(".,!?;:")
