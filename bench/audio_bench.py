"""Speech benchmarks: TTS and ASR real-time factors, the warm TTS→ASR channel, and ASR latency on a 5 s file.

Run: .venv/bin/python bench/audio_bench.py [--quick] [--out bench/results/audio_raw.json]

Utterances are our own MultiWOZ-style sentences of about 5 s of piper speech (names, times, counts). Each
figure is per utterance; models are loaded and warmed first (the channel figure is "warm models"). The ASR
"live" setting is what a recorded turn uses (WAV file, Silero VAD, temperature fallback); "channel" is what
asr-real uses (array, no VAD, temperature 0). "fw-defaults" is faster-whisper's defaults (beam 5, temperature
fallback, VAD off) — the setting of the figures measured before this work.
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
from pathlib import Path

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


def stats(xs: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(xs), 3), "mean": round(statistics.fmean(xs), 3),
            "min": round(min(xs), 3), "max": round(max(xs), 3), "n": len(xs)}


CPU: list[float] = []  # process CPU seconds (user+sys, all threads) of every timed call, in order


def timed(fn):  # type: ignore[no-untyped-def]
    """Run ``fn``; return (result, wall seconds). The CPU seconds it used are appended to ``CPU``."""
    c0 = _cpu()
    t = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t
    CPU.append(_cpu() - c0)
    return out, wall


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_since(n: int) -> dict[str, float]:
    """Stats of the CPU seconds of the timed calls made since ``len(CPU) == n``."""
    return stats(CPU[n:])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="4 utterances, tiny.en only")
    ap.add_argument("--out", default=None, help="write the raw figures as JSON here")
    args = ap.parse_args()
    utts = UTTERANCES[:4] if args.quick else UTTERANCES

    from audio.asr import SAMPLE_RATE, get_asr, resample
    from audio.channel import RealASRChannel
    from audio.tts import PiperTTS, get_tts, write_wav
    from audio.wer import wer
    from engine.rewrite.base import RewriteContext

    res: dict = {"machine": f"{platform.machine()} cores={os.cpu_count()}",
                 "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "utterances": len(utts),
                 "loadavg_start": [round(x, 2) for x in os.getloadavg()]}

    # --- TTS --------------------------------------------------------------------------------------------------
    (piper, load_s) = timed(lambda: get_tts("piper", fallback=False, deterministic=True))
    res["piper_load_s"] = round(load_s, 2)
    piper.synthesize("Warm up.")
    clips, tts_s, tts_rtf, secs, n0 = [], [], [], [], len(CPU)
    for u in utts:
        fresh = PiperTTS(deterministic=True)  # no sentence cache: a cold sentence every time
        fresh._voice = piper._voice
        (audio, sr), dt = timed(lambda fresh=fresh, u=u: fresh.synthesize(u))
        clip = resample(audio, sr, SAMPLE_RATE)
        clips.append(clip)
        secs.append(clip.size / SAMPLE_RATE)
        tts_s.append(dt)
        tts_rtf.append(dt / secs[-1])
    res["audio_seconds"] = stats(secs)
    res["tts_piper"] = {"seconds": stats(tts_s), "rtf": stats(tts_rtf), "cpu_s": cpu_since(n0)}
    piper.synthesize(utts[0])  # now in the sentence cache
    (_, cached_s) = timed(lambda: piper.synthesize(utts[0]))
    res["tts_piper_cached_sentence_s"] = round(cached_s, 4)
    try:
        esp = get_tts("espeak", fallback=False)
        e_s, e_rtf = [], []
        for u in utts:
            (a, sr), dt = timed(lambda u=u: esp.synthesize(u))
            e_s.append(dt)
            e_rtf.append(dt / (a.size / sr))
        res["tts_espeak"] = {"seconds": stats(e_s), "rtf": stats(e_rtf)}
    except Exception as e:  # espeak-ng missing
        res["tts_espeak"] = {"error": str(e)}

    # --- ASR --------------------------------------------------------------------------------------------------
    models = ["tiny.en"] if args.quick else ["tiny.en", "base"]
    tmp = Path(tempfile.mkdtemp(prefix="parley-bench-"))
    wavs = [write_wav(tmp / f"u{i}.wav", c, SAMPLE_RATE) for i, c in enumerate(clips)]
    for m in models:
        (asr, load_s) = timed(lambda m=m: get_asr(m))
        entry: dict = {"load_s": round(load_s, 2)}
        for label, call in (
            ("channel", lambda c, w, asr=asr: asr.transcribe(c, vad=False, deterministic=True)),
            ("live", lambda c, w, asr=asr: asr.transcribe(w)),
        ):
            lat, rtf, hyps, n0 = [], [], [], len(CPU)
            for c, w in zip(clips, wavs, strict=True):
                tr, dt = timed(lambda c=c, w=w, call=call: call(c, w))
                lat.append(dt)
                rtf.append(dt / (c.size / SAMPLE_RATE))
                hyps.append(tr.text)
            entry[label] = {"latency_s": stats(lat), "rtf": stats(rtf), "cpu_s": cpu_since(n0),
                            "wer": round(wer(list(utts), hyps), 4)}
        whisper = asr._whisper
        lat, hyps, lang = [], [], asr._language(whisper)
        for c in clips:
            def default_decode(c=c, whisper=whisper, lang=lang):  # type: ignore[no-untyped-def]
                segs, _ = whisper.transcribe(c, language=lang)
                return " ".join(s.text for s in segs)
            text, dt = timed(default_decode)
            lat.append(dt)
            hyps.append(text)
        entry["fw-defaults"] = {"latency_s": stats(lat), "wer": round(wer(list(utts), hyps), 4)}
        res[f"asr_{m}"] = entry

    # --- the whole channel, warm --------------------------------------------------------------------------------
    for m in models:
        ch = RealASRChannel(model=m).load()
        ch.rewrite("Warm up the channel.", RewriteContext(rng=random.Random(0), seed=0))
        for label, snr in (("clean", None), ("snr10", 10.0)):
            ch.params = {**ch.params, "snr": snr}
            ch._tts = PiperTTS(deterministic=True)  # cold sentence cache for each pass
            ch._tts._voice = piper._voice
            lat, hyps, n0 = [], [], len(CPU)
            for i, u in enumerate(utts):
                out, dt = timed(lambda u=u, i=i, ch=ch: ch.rewrite(u, RewriteContext(rng=random.Random(i), seed=i)))
                lat.append(dt)
                hyps.append(out.after)
            res[f"channel_{m}_{label}"] = {"seconds": stats(lat), "cpu_s": cpu_since(n0),
                                           "wer": round(wer(list(utts), hyps), 4)}
        ch.params = {**ch.params, "snr": None}
        lat = []
        for i, u in enumerate(utts):  # second pass: every sentence is in piper's sentence cache
            _, dt = timed(lambda u=u, i=i, ch=ch: ch.rewrite(u, RewriteContext(rng=random.Random(i), seed=i)))
            lat.append(dt)
        res[f"channel_{m}_repeated_sentences"] = {"seconds": stats(lat)}

    res["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(res, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
