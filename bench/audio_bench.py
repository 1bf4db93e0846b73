"""Speech benchmarks: TTS and ASR real-time factors, the warm TTS→ASR channel, and ASR latency on a 5 s file.

Run: .venv/bin/python bench/audio_bench.py [--quick] [--reps N] [--out FILE.json]

Utterances are our own MultiWOZ-style sentences of about 5 s of piper speech (names, times, counts). Figures
are
per utterance, with models loaded and warmed first ("warm models"). Each utterance is timed ``--reps`` times:
``first`` is the median over utterances of the first run, ``best`` the median of each utterance's fastest run
(the figure least disturbed by other processes on a shared machine); ``cpu_s`` is process CPU time (all
threads).

ASR settings: "channel" is what asr-real uses (array, no VAD, greedy, temperature 0, short encoder window);
"channel-30s-window" the same with faster-whisper's 30 s window (asr-real:fast=false); "live" is what a
recorded turn uses (WAV file, Silero VAD, greedy, temperature fallback, 30 s window); "fw-defaults" is
faster-whisper's defaults (beam 5, temperature fallback, no VAD, 30 s window), the setting of the figures
measured before this work.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

UTTERANCES = (
    "I'd like to book a table for five people at the Golden Curry on Saturday at a quarter to eight.",
    "Could you find me a train from Stansted Airport to Cambridge arriving before half past ten on Monday?",
    "We need a guesthouse in the north with free parking and wifi for three nights from Tuesday.",
    "Please get me a taxi from Kettle's Yard to the Cambridge Arts Theatre leaving at two fifteen.",
    "Is there a moderately priced Indian restaurant near the city centre that is open late tonight?",
    "My sister Rebecca and I want two tickets to Norwich on the train after six in the evening.",
    "What's the phone number and postcode of the Fitzwilliam Museum, and is the entrance free?",
    "Can you change my booking to eight people at seven thirty, because two more friends are coming?",
    "I'm looking for an expensive hotel with four stars in the west, for two people and one night.",
    "Book the Lucky Star for Thursday at noon, and send the reference number to Thomas, please.",
    "How long is the journey from Ely to Peterborough, and how much does a single ticket cost?",
    "I need to reach Addenbrookes Hospital by nine forty in the morning, so find me a taxi please.",
)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _r(x: float) -> float:
    return round(x, 3)


class Timing:
    """Wall/CPU seconds of ``reps`` runs per item; summarised over items."""

    def __init__(self) -> None:
        self.first: list[float] = []
        self.best: list[float] = []
        self.cpu: list[float] = []
        self.per_audio_s: list[float] = []

    def run(self, fn: Callable[[], Any], reps: int, audio_s: float | None = None) -> Any:
        walls, out = [], None
        for _ in range(reps):
            c0, t0 = _cpu(), time.perf_counter()
            out = fn()
            walls.append(time.perf_counter() - t0)
            self.cpu.append(_cpu() - c0)
        self.first.append(walls[0])
        self.best.append(min(walls))
        if audio_s:
            self.per_audio_s.append(audio_s)
        return out

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "first": {"median": _r(statistics.median(self.first)), "mean": _r(statistics.fmean(self.first))},
            "best": {"median": _r(statistics.median(self.best)), "mean": _r(statistics.fmean(self.best))},
            "cpu_s_median": _r(statistics.median(self.cpu)), "n": len(self.first)}
        if self.per_audio_s:
            out["rtf_best_median"] = _r(statistics.median(b / a for b, a in zip(self.best, self.per_audio_s,
                                                                                 strict=True)))
            out["rtf_first_median"] = _r(statistics.median(f / a for f, a in zip(self.first, self.per_audio_s,
                                                                                  strict=True)))
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="4 utterances, tiny.en only (1 rep unless --reps)")
    ap.add_argument("--reps", type=int, default=None, help="timed runs per utterance (default 3)")
    ap.add_argument("--out", default=None, help="also write the figures as JSON here")
    args = ap.parse_args()
    utts = list(UTTERANCES[:4] if args.quick else UTTERANCES)
    reps = max(1, args.reps if args.reps is not None else 1 if args.quick else 3)

    from parley.audio.asr import SAMPLE_RATE, get_asr, resample
    from parley.audio.channel import RealASRChannel
    from parley.audio.tts import PiperTTS, get_tts, write_wav
    from parley.audio.wer import wer
    from parley.engine.rewrite.base import RewriteContext

    res: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, no GPU", "reps": reps,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "utterances": len(utts),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()]}

    # TTS: a fresh sentence cache for every run, so each run synthesises
    t0 = time.perf_counter()
    piper = get_tts("piper", fallback=False, deterministic=True)
    res["piper_load_s"] = _r(time.perf_counter() - t0)
    piper.synthesize("Warm up.")

    def cold_piper() -> PiperTTS:
        fresh = PiperTTS(deterministic=True)
        fresh._voice, fresh.sample_rate = piper._voice, piper.sample_rate
        return fresh

    tts_t, clips = Timing(), []
    for u in utts:
        n = len(cold_piper().synthesize(u)[0]) / piper.sample_rate
        audio, sr = tts_t.run(lambda u=u: cold_piper().synthesize(u), reps, n)
        clips.append(resample(audio, sr, SAMPLE_RATE))
    secs = [c.size / SAMPLE_RATE for c in clips]
    res["audio_seconds"] = {"median": _r(statistics.median(secs)), "min": _r(min(secs)), "max": _r(max(secs))}
    res["tts_piper"] = tts_t.summary()
    piper.synthesize(utts[0])
    t0 = time.perf_counter()
    piper.synthesize(utts[0])
    res["tts_piper_sentence_cache_hit_s"] = round(time.perf_counter() - t0, 4)
    try:
        esp = get_tts("espeak", fallback=False)
        esp_t = Timing()
        for u in utts:
            a, sr = esp.synthesize(u)
            esp_t.run(lambda u=u: esp.synthesize(u), reps, a.size / sr)
        res["tts_espeak"] = esp_t.summary()
    except Exception as e:  # espeak-ng missing
        res["tts_espeak"] = {"error": str(e)}

    # ASR
    models = ["tiny.en"] if args.quick else ["tiny.en", "base"]
    tmp = Path(tempfile.mkdtemp(prefix="parley-bench-"))
    wavs = [write_wav(tmp / f"u{i}.wav", c, SAMPLE_RATE) for i, c in enumerate(clips)]
    for m in models:
        t0 = time.perf_counter()
        asr = get_asr(m)
        entry: dict[str, Any] = {"load_s": _r(time.perf_counter() - t0)}
        whisper, lang = asr._whisper, asr._language(asr._whisper)

        def fw_defaults(c: Any, w: str, whisper: Any = whisper, lang: Any = lang) -> str:
            segs, _ = whisper.transcribe(c, language=lang)
            return " ".join(s.text for s in segs)

        modes: dict[str, Callable[[Any, str], str]] = {
            "channel": lambda c, w, asr=asr: asr.transcribe(c, vad=False, deterministic=True,
                                                           short_window=True).text,
            "channel-30s-window": lambda c, w, asr=asr: asr.transcribe(c, vad=False, deterministic=True,
                                                                      short_window=False).text,
            "live": lambda c, w, asr=asr: asr.transcribe(w).text,
            "fw-defaults": fw_defaults,
        }
        for label, call in modes.items():
            t, hyps = Timing(), []
            for c, w, s in zip(clips, wavs, secs, strict=True):
                hyps.append(t.run(lambda c=c, w=w, call=call: call(c, w), reps, s))
            entry[label] = {**t.summary(), "wer": round(wer(utts, hyps), 4)}
        res[f"asr_{m}"] = entry

    # the whole channel with warm models (fresh piper sentence cache per run)
    for m in models:
        ch = RealASRChannel(model=m).load()
        ch.rewrite("Warm up the channel.", RewriteContext(rng=random.Random(0), seed=0))
        for label, snr in (("clean", None), ("snr10", 10.0)):
            ch.params = {**ch.params, "snr": snr}
            t, hyps = Timing(), []

            def once(u: str, i: int, ch: Any = ch) -> str:
                ch._tts = cold_piper()
                return str(ch.rewrite(u, RewriteContext(rng=random.Random(i), seed=i)).after)

            for i, (u, s) in enumerate(zip(utts, secs, strict=True)):
                hyps.append(t.run(lambda u=u, i=i: once(u, i), reps, s))
            res[f"channel_{m}_{label}"] = {**t.summary(), "wer": round(wer(utts, hyps), 4)}
        ch.params = {**ch.params, "snr": None}
        ch._tts = piper
        for u in utts:
            ch.rewrite(u, RewriteContext(rng=random.Random(0), seed=0))
        t = Timing()
        for i, u in enumerate(utts):  # every sentence is in piper's sentence cache now
            t.run(lambda u=u, i=i, ch=ch: ch.rewrite(u, RewriteContext(rng=random.Random(i), seed=i)), reps)
        res[f"channel_{m}_cached_sentences"] = t.summary()

    res["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(res, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
