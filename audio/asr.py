"""Offline speech recognition with faster-whisper (CTranslate2, int8 on CPU).

``get_asr("tiny.en")`` returns a cached :class:`ASR` per model setting; the model itself loads on the first
``transcribe`` or on an explicit ``load(progress)`` (call that from a worker thread: it takes ~2 s). The
transcript keeps per-segment timings and average log-probabilities so a turn can store them.

Speed settings (measured in bench/audio_bench.py): greedy decoding (``beam_size=1``), no conditioning on
previous text, English forced for ``.en``/bundled models, a warm-up pass after loading, and ``cpu_threads`` =
the number of cores up to 4. Silero VAD (bundled in faster-whisper) filters silence for microphone input;
synthetic audio skips it.

**Short encoder window** (``short_window``, off by default; the ``asr-real`` channel turns it on).
faster-whisper pads every input to Whisper's 30 s window, so the encoder costs the same for a 5 s turn as for
30 s. With ``short_window`` audio up to 29 s is padded to ``max(10 s, audio + 1 s)`` instead: about 2–3×
faster ASR on a 5 s turn, for about 1–2 points more WER with tiny.en on our benchmark sentences
(bench/results/audio.md; shorter padding than 10 s made Whisper hallucinate). The window is cut where
faster-whisper hands the features to its public ``WhisperModel.encode`` (see :func:`_whisper_class`); nothing
of faster-whisper is patched at run time.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from parley.engine.types import LoadError
from parley.progress import Progress

log = logging.getLogger(__name__)

SAMPLE_RATE = 16000


@dataclass(frozen=True)
class Transcript:
    """What the recogniser heard. ``segments`` are ``{"start", "end", "text", "avg_logprob",
    "no_speech_prob"}`` dicts (seconds); ``avg_logprob`` is the duration-weighted mean over segments.
    ``words`` (asked for with ``word_probs``) are ``(word, probability)`` pairs in order; ``bias`` says what
    contextual biasing did (:mod:`parley.audio.bias`: the first text heard, hotwords, names snapped)."""

    text: str
    segments: tuple[dict, ...]
    avg_logprob: float | None
    audio_seconds: float
    latency_ms: float
    model: str
    words: tuple[tuple[str, float], ...] = ()
    bias: dict[str, Any] | None = None
    #: each word's (start, end) in seconds of the audio, in step with ``words`` (with ``word_probs``)
    word_spans: tuple[tuple[float, float], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "segments": [dict(s) for s in self.segments],
               "avg_logprob": self.avg_logprob, "audio_seconds": self.audio_seconds,
               "latency_ms": self.latency_ms, "model": self.model}
        if self.words:
            out["words"] = [[w, round(p, 3)] for w, p in self.words]
        if self.bias is not None:
            out["bias"] = dict(self.bias)
        return out


def check_audio_file(path: str | os.PathLike[str]) -> float:
    """The length in seconds of an audio file, read from its header without decoding it; a ValueError when
    it cannot be decoded or would decode to more samples than the record budget holds (float32,
    :mod:`parley.limits`), so a list of recordings is checked whole before any turn is stored."""
    from parley.errors import ParleyError
    from parley.limits import INPUT, RECORD, check_size, size

    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{p} is a folder, not an audio file")
    if not p.is_file():
        raise FileNotFoundError(f"audio file {p} does not exist")
    try:
        check_size(p, f"audio file {p}", ParleyError, INPUT)
    except ParleyError as e:
        raise ValueError(e.message) from None
    try:
        import soundfile

        info = soundfile.info(str(p))
        seconds, samples = float(info.duration), int(info.frames) * int(info.channels)
    except Exception:
        try:
            import av

            with av.open(str(p)) as container:
                stream = container.streams.audio[0]
                seconds = float(container.duration or 0) / 1e6
                samples = int(seconds * (stream.rate or SAMPLE_RATE) * (stream.channels or 1))
        except Exception as e:  # no audio stream, not a media file
            reason = getattr(e, "strerror", None) or str(e) or type(e).__name__
            raise ValueError(f"cannot read audio file {p}: {reason}") from None
    if samples * 4 > RECORD.get():
        what = f"{seconds:,.0f} s decode to {size(samples * 4)}"
        raise ValueError(RECORD.message(f"audio file {p}", what))
    return seconds


def load_audio(audio: str | os.PathLike[str] | np.ndarray, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Audio as float32 mono at 16 kHz, from a file (WAV/FLAC/OGG via soundfile, others via PyAV; checked
    first by :func:`check_audio_file`) or an array."""
    if isinstance(audio, (str, os.PathLike)):
        path = Path(audio)
        check_audio_file(path)
        try:
            import soundfile

            data, sample_rate = soundfile.read(str(path), dtype="float32", always_2d=False)
        except Exception:
            try:
                from faster_whisper.audio import decode_audio

                return np.asarray(decode_audio(str(path), sampling_rate=SAMPLE_RATE), dtype=np.float32)
            except Exception as e:  # PyAV's errors carry an errno number and repeat the path: keep the reason
                reason = getattr(e, "strerror", None) or str(e)
                raise ValueError(f"cannot read audio file {path}: {reason}") from None
        audio = np.asarray(data)
    arr = np.asarray(audio, dtype=np.float32)
    if arr.ndim == 2:
        arr = arr.mean(axis=1 if arr.shape[1] <= 8 else 0)
    if arr.ndim != 1:
        raise ValueError(f"audio must be mono or (samples, channels), got shape {arr.shape}")
    return resample(arr, int(sample_rate), SAMPLE_RATE)


def resample(audio: np.ndarray, sr_in: int, sr_out: int) -> np.ndarray:
    """Polyphase resampling (scipy) to ``sr_out``; float32 out."""
    if sr_in == sr_out or audio.size == 0:
        return audio.astype(np.float32, copy=False)
    from math import gcd

    from scipy.signal import resample_poly

    g = gcd(sr_in, sr_out)
    return resample_poly(audio, sr_out // g, sr_in // g).astype(np.float32)


#: Whisper's feature frames per second, its full window, and the shortest window we pad to
_FRAMES_PER_S = 100
_FULL_FRAMES = 3000
_MIN_FRAMES = 1000
#: improbable words with this much silence (s) around them are dropped (faster-whisper's own check, which
#: needs word timestamps)
HALLUCINATION_SILENCE_S = 1.0
#: text that compresses more than this is a decoding loop (faster-whisper's threshold for its fallback) ...
LOOP_COMPRESSION = 2.4
#: ... and is decoded again with no run of this many tokens said twice
LOOP_NGRAM = 4


def window_frames(seconds: float, short: bool) -> int | None:
    """Encoder frames for ``seconds`` of audio with the short window (``max(10 s, audio + 1 s)``), or None for
    Whisper's full 30 s window (``short`` off, or audio too long for a short window to help)."""
    frames = int(seconds * _FRAMES_PER_S) + 2 + _FRAMES_PER_S
    if not short or frames > _FULL_FRAMES:
        return None
    return max(_MIN_FRAMES, frames)


def _whisper_class() -> Any:
    """faster-whisper's ``WhisperModel`` with a public hook for the short encoder window.

    faster-whisper pads every window's features to 30 s and hands them to the public ``WhisperModel.encode``;
    this subclass cuts that padding down to ``frames`` before encoding. The cut never reaches speech
    (``frames`` is at least the audio's length plus 1 s), so the encoder sees exactly what padding to
    ``frames`` would have given. tests/unit/test_audio_asr.py fails loudly if faster-whisper stops encoding
    through ``encode``.
    """
    from faster_whisper import WhisperModel

    class ShortWindowWhisper(WhisperModel):
        frames: int | None = None

        def encode(self, features: np.ndarray) -> Any:
            if self.frames is not None and features.shape[-1] > self.frames:
                features = np.ascontiguousarray(features[..., :self.frames])
            return super().encode(features)

    return ShortWindowWhisper


class ASR:
    """A faster-whisper model. Thread-safe: one transcription at a time per model."""

    def __init__(self, model: str = "tiny.en", *, compute_type: str = "int8", cpu_threads: int | None = None,
                 beam_size: int = 1, language: str | None = "en", short_window: bool = False) -> None:
        self.model = model
        self.short_window = short_window
        self.compute_type = compute_type
        self.cpu_threads = cpu_threads or min(4, os.cpu_count() or 1)
        self.beam_size = beam_size
        self.language = language
        self._whisper: Any = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._whisper is not None

    def load(self, progress: Progress = None) -> ASR:
        """Load the model (once) and run a short warm-up pass; raises :class:`LoadError` with a clear
        message."""
        with self._lock:
            if self._whisper is None:
                self._whisper = self._load(progress)
        return self

    def _load(self, progress: Progress) -> Any:
        from parley.audio.models import _say, resolve_asr

        ref, local = resolve_asr(self.model, progress)
        _say(progress, f"loading Whisper {self.model}…")
        try:
            whisper_class = _whisper_class()
        except ImportError:
            raise LoadError("faster-whisper is not installed (pip install faster-whisper)") from None
        kw: dict[str, Any] = {}
        if not local:
            from parley.engine.loading import hub_offline

            kw["local_files_only"] = hub_offline()
        try:
            whisper = whisper_class(ref, device="cpu", compute_type=self.compute_type,
                                   cpu_threads=self.cpu_threads, **kw)
        except Exception as e:
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            if not local:
                raise LoadError(f"Whisper model {self.model!r} is not a bundled model (tiny.en, base), not a "
                                f"local folder, and could not be fetched offline ({msg})") from None
            raise LoadError(f"could not load Whisper model {self.model!r}: {msg}") from None
        _say(progress, f"warming up Whisper {self.model}…")
        try:  # the first decode allocates buffers: pay for it here, not on the first user turn
            for short in (False, True):  # both encoder window sizes
                whisper.frames = window_frames(0.5, short)
                segs, _ = whisper.transcribe(np.zeros(SAMPLE_RATE // 2, dtype=np.float32), beam_size=1,
                                             language=self._language(whisper), without_timestamps=True,
                                             condition_on_previous_text=False, temperature=0.0)
                list(segs)
            whisper.frames = None
        except Exception as e:  # pragma: no cover - a model that loads but cannot decode
            raise LoadError(f"Whisper model {self.model!r} loaded but failed a test decode: {e}") from None
        return whisper

    def _language(self, whisper: Any) -> str | None:
        if not getattr(whisper, "model", None) or not whisper.model.is_multilingual:
            return None
        return self.language

    def transcribe(self, audio: str | os.PathLike[str] | np.ndarray, sample_rate: int = SAMPLE_RATE, *,
                   vad: bool | None = None, deterministic: bool = False,
                   short_window: bool | None = None, hotwords: str | None = None,
                   initial_prompt: str | None = None, word_probs: bool = False,
                   max_new_tokens: int | None = None, squeeze_pauses: bool = False) -> Transcript:
        """Transcribe a file or an array (any sample rate; resampled to 16 kHz).

        ``vad`` filters silence with Silero VAD (default: on for files, i.e. recordings; off for arrays, i.e.
        synthetic audio). ``deterministic`` decodes at temperature 0 only (no sampling fallback), so the same
        audio always gives the same text; otherwise faster-whisper's temperature fallback is kept.
        ``short_window`` overrides the model's setting (see the module docstring). ``hotwords`` (names the
        speaker may say) and ``initial_prompt`` (text that came before, e.g. the dialogue's last turns) bias
        the decoder (faster-whisper's options of those names; :mod:`parley.audio.bias`). ``word_probs`` keeps
        each word's probability (``Transcript.words``; Whisper's word alignment, about a fifth more time).
        ``max_new_tokens`` bounds each segment's text (a decoding loop stops there). ``squeeze_pauses``
        shortens the silences inside the audio before decoding (:func:`parley.audio.vad.pause_options`; word
        and segment times stay those of the audio given), so Whisper does not end the transcript at a pause.

        Guards against made-up text: with ``word_probs``, faster-whisper's ``hallucination_silence_threshold``
        drops improbable words surrounded by silence; a deterministic decode that loops (its text compresses
        more than ``LOOP_COMPRESSION``) is decoded again without repeating itself (``no_repeat_ngram_size``).
        """
        t0 = time.perf_counter()
        use_vad = isinstance(audio, (str, os.PathLike)) if vad is None else vad
        samples = load_audio(audio, sample_rate)
        seconds = samples.size / SAMPLE_RATE
        self.load()
        temperature: float | list[float] = 0.0 if deterministic else [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
        short = self.short_window if short_window is None else short_window
        options: dict[str, object] = {
            "beam_size": self.beam_size, "language": self._language(self._whisper),
            "condition_on_previous_text": False, "temperature": temperature,
            "vad_filter": use_vad or squeeze_pauses, "hotwords": hotwords or None,
            "initial_prompt": initial_prompt or None, "word_timestamps": word_probs,
            "max_new_tokens": max_new_tokens}
        if squeeze_pauses:
            from parley.audio.vad import pause_options

            options["vad_parameters"] = pause_options()
        if word_probs:
            options["hallucination_silence_threshold"] = HALLUCINATION_SILENCE_S
        with self._lock:
            self._whisper.frames = window_frames(seconds, short)
            try:
                decoded = self._decode(samples, options)
                if deterministic and decoded.looped:
                    decoded = self._decode(samples, {**options, "no_repeat_ngram_size": LOOP_NGRAM})
            finally:
                self._whisper.frames = None
        segments = decoded.segments
        text = " ".join(s["text"] for s in segments if s["text"]).strip()
        return Transcript(text=text, segments=tuple(segments), avg_logprob=_weighted_logprob(segments),
                          audio_seconds=round(seconds, 3),
                          latency_ms=round((time.perf_counter() - t0) * 1000, 1), model=self.model,
                          words=tuple(decoded.words), word_spans=tuple(decoded.spans))

    def _decode(self, samples: np.ndarray, options: dict[str, object]) -> _Decoded:
        """One faster-whisper pass over ``samples`` (the lock is held)."""
        out = _Decoded()
        if not samples.size:
            return out
        segs, _info = self._whisper.transcribe(samples, **options)
        for s in segs:  # a lazy generator: decoding happens here
            out.looped = out.looped or float(s.compression_ratio) > LOOP_COMPRESSION
            if not any(ch.isalnum() for ch in s.text):
                continue  # ". . . ." decoded from the silence after the speech: no words
            for w in s.words or ():
                out.words.append((w.word.strip(), float(w.probability)))
                out.spans.append((round(float(w.start), 3), round(float(w.end), 3)))
            out.segments.append({"start": round(float(s.start), 3), "end": round(float(s.end), 3),
                                 "text": s.text.strip(), "avg_logprob": float(s.avg_logprob),
                                 "no_speech_prob": float(s.no_speech_prob)})
        return out

    def score(self, audio: np.ndarray, texts: list[str], *, short_window: bool | None = None) -> list[float]:
        """How likely each of ``texts`` is as the transcript of ``audio`` (16 kHz): summed token
        log-probabilities, for the acoustic check of a snapped name (:mod:`parley.audio.rescore`)."""
        from parley.audio.rescore import text_logprobs

        samples = load_audio(audio, SAMPLE_RATE)
        self.load()
        short = self.short_window if short_window is None else short_window
        frames = window_frames(samples.size / SAMPLE_RATE, short)
        with self._lock:
            return text_logprobs(self._whisper, samples, texts, frames)


@dataclass
class _Decoded:
    """What one decoding pass gave, in step: segments, words with probabilities, word times."""

    segments: list[dict] = field(default_factory=list)
    words: list[tuple[str, float]] = field(default_factory=list)
    spans: list[tuple[float, float]] = field(default_factory=list)
    looped: bool = False


def _weighted_logprob(segments: list[dict]) -> float | None:
    if not segments:
        return None
    weights = [max(s["end"] - s["start"], 1e-3) for s in segments]
    return round(sum(w * s["avg_logprob"] for w, s in zip(weights, segments, strict=True)) / sum(weights), 4)


_cache: dict[str, ASR] = {}
_cache_lock = threading.Lock()


def get_asr(model: str = "tiny.en", progress: Progress = None) -> ASR:
    """The shared :class:`ASR` for a model setting, loaded (with progress messages) if it was not yet.

    Raises :class:`~engine.types.LoadError` with a user-facing message when the model cannot be loaded.
    """
    with _cache_lock:
        asr = _cache.get(model)
        if asr is None:
            asr = _cache[model] = ASR(model)
    try:
        return asr.load(progress)
    except LoadError:
        with _cache_lock:
            _cache.pop(model, None)
        raise
