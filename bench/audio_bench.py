"""Speech benchmarks: TTS and ASR real-time factors, the warm TTS→ASR channel, and ASR latency on a 5 s file.

Run: .venv/bin/python bench/audio_bench.py [--quick] [--reps N] [--out FILE.json]
     .venv/bin/python bench/audio_bench.py --rig [--rounds N] [--model tiny.en] [--silence-ms 500] [--out
     F.json]

``--rig`` measures spoken turn-taking on the loopback rig (audio.rig, through PortAudio → ALSA → PulseAudio):
our own dialogues, piper speech with background noise at 15 dB SNR spoken in real time over the rig's room
noise, the same pipeline as the TUI's voice mode (Silero VAD end-pointing, speculative Whisper, the `multiwoz`
system, replies spoken sentence by sentence with piper). The headline is measured outside parley, on the rig:
the end of the speech the rig played → the first sample of the reply on the rig's speaker. parley's own stage
timings (as stored per turn) say where the time goes.

Utterances are our own MultiWOZ-style sentences of about 5 s of piper speech (names, times, counts). Figures
are per utterance, with models loaded and warmed first ("warm models"). Each utterance is timed ``--reps``
times: ``first`` is the median over utterances of the first run, ``best`` the median of each utterance's
fastest run (the figure least disturbed by other processes on a shared machine); ``cpu_s`` is process CPU time
(all threads).

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
    ap.add_argument("--rig", action="store_true", help="spoken turn-taking latency on the loopback rig")
    ap.add_argument("--rounds", type=int, default=2, help="--rig: times through the dialogues (default 2)")
    ap.add_argument("--model", default="tiny.en", help="--rig: Whisper model (default tiny.en)")
    ap.add_argument("--silence-ms", type=int, default=500, help="--rig: end-of-turn silence (default 500)")
    ap.add_argument("--long-window", action="store_true", help="--rig: Whisper's 30 s window for the turns")
    ap.add_argument("--no-speculative", action="store_true", help="--rig: transcribe only after the silence")
    ap.add_argument("--no-ahead", action="store_true",
                    help="--rig: no reply made ahead (rewriters, system, first sentence after the silence)")
    args = ap.parse_args()
    if args.rig:
        rig_main(args)
        return
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


DIALOGUES = (  # the tester's side of four dialogues, written for this benchmark
    ("I am looking for a cheap restaurant in the north of town.", "Italian food, please.",
     "Can I have the phone number?", "Book a table for two at seven thirty on Friday."),
    ("I need a place to stay in the east.", "It should have free parking.",
     "Book it for three nights from Tuesday for two people."),
    ("I need a train to Cambridge on Saturday.", "I am leaving from London Kings Cross.",
     "I want to arrive by ten in the morning.", "Please book two tickets."),
    ("Is there a museum in the centre?", "What is the entrance fee?",
     "I also need a taxi from the museum to the station at five."),
)


def _stats(values: list[float]) -> dict[str, float]:
    import numpy as np

    a = np.array([v for v in values if v is not None], dtype=float)
    if not a.size:
        return {}
    return {"n": int(a.size), "median": round(float(np.median(a)), 1),
            "p90": round(float(np.percentile(a, 90)), 1), "mean": round(float(a.mean()), 1),
            "min": round(float(a.min()), 1), "max": round(float(a.max()), 1)}


def rig_main(args: argparse.Namespace) -> None:
    import queue
    import threading

    import numpy as np

    from parley.audio import devices
    from parley.audio.ahead import preparer
    from parley.audio.asr import get_asr, resample
    from parley.audio.capture import MicStream
    from parley.audio.listen import Listener
    from parley.audio.rig import MIC_RATE, Rig
    from parley.audio.speaker import speak_reply
    from parley.audio.tts import get_tts
    from parley.audio.utterances import pink_noise
    from parley.audio.voice import from_heard, reply_timings, transcriber
    from parley.audio.wer import wer
    from parley.engine.session import Session
    from parley.engine.systems import build_system
    from parley.store import open_store

    tmp = Path(tempfile.mkdtemp(prefix="parley-rig-bench-"))
    os.environ.setdefault("PARLEY_DATA", str(tmp / "data"))
    res: dict[str, Any] = {"machine": f"{platform.machine()}, {os.cpu_count()} cores, no GPU",
                           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "model": args.model,
                           "silence_ms": args.silence_ms, "short_window": not args.long_window,
                           "speculative": not args.no_speculative, "ahead": not args.no_ahead,
                           "loadavg_start": list(os.getloadavg())}
    asr, tts = get_asr(args.model), get_tts("piper")
    voice = get_tts("piper", deterministic=True)
    system = build_system("multiwoz")
    system.load()
    store = open_store(tmp / "bench.db")
    rng = np.random.default_rng(0)
    turns: list[dict[str, Any]] = []
    with Rig(noise_dbfs=-45.0) as rig:
        os.environ.update(rig.env)
        devices.rescan()
        done_q: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()
        current: dict[str, Any] = {}
        prepare = None if args.no_ahead else preparer(lambda: current.get("session"), tts)
        listener = Listener(transcriber(asr, short_window=not args.long_window),
                            end_silence_s=args.silence_ms / 1000, speculative=not args.no_speculative,
                            prepare=prepare)

        def answer(h: Any) -> None:  # parley's side, as in the TUI: stored turn, spoken reply, latencies
            session = current["session"]
            spoken_in = from_heard(h)
            pending = session.accept(spoken_in.text, audio_in=spoken_in.audio_path, input_info=spoken_in.info)
            ahead = spoken_in.ahead
            ex = session.run(pending, ahead.turn() if ahead is not None else None)
            replied = time.monotonic()
            reply = ex.reply.text if ex.reply else "Sorry?"
            first = ahead.speech_for(reply) if ahead is not None else None
            spoken = speak_reply(tts, reply, session.reply_audio_path(ex), ahead=first)
            timings = {**reply_timings(spoken_in, replied, spoken), "turn_ahead": ex.ahead}
            session.record_speech(ex, spoken.path, timings)
            done_q.put((h, spoken_in, timings))

        def listen() -> None:
            with MicStream() as mic:
                current["mic"] = mic
                for t, block in mic.blocks(stop):
                    current["lag"] = time.monotonic() - t - block.size / MIC_RATE  # audio waiting for parley
                    for h in listener.feed(t, block):
                        threading.Thread(target=answer, args=(h,), daemon=True).start()

        threading.Thread(target=listen, daemon=True).start()
        time.sleep(1.0)
        for rnd in range(args.rounds):  # the tester's side: speak, wait for the whole reply, pause, go on
            for dialogue in DIALOGUES:
                current["session"] = Session(store, system, system_spec="multiwoz", mode="batch", seed=rnd)
                for text in dialogue:
                    clean, sr = voice.synthesize(text)
                    clean = resample(clean, sr, MIC_RATE) * 0.5
                    last = int(np.flatnonzero(np.abs(clean) > 0.01 * np.abs(clean).max())[-1]) + 1
                    power = float(np.mean(clean.astype(np.float64) ** 2))
                    said = clean + pink_noise(clean.size, rng) * np.sqrt(power / 10 ** 1.5)  # 15 dB SNR
                    t_end = rig.say(said.astype(np.float32)) - (clean.size - last) / MIC_RATE
                    h, spoken_in, timings = done_q.get(timeout=120)
                    heard_at = rig.first_sound_after(t_end)
                    gap = None if heard_at is None else round((heard_at - t_end) * 1000, 1)
                    turns.append({"text": text, "heard": spoken_in.text,
                                  "wer": round(wer(text, spoken_in.text), 3), "rig_end_to_audio_ms": gap,
                                  "vad_end_minus_true_end_ms": round((h.speech_end - t_end) * 1000, 1),
                                  "speech_s": round(last / MIC_RATE, 2), "load1": os.getloadavg()[0],
                                  "mic_overflows": current["mic"].overflows,
                                  "capture_lag_ms": round(current["lag"] * 1000, 1),
                                  **timings})
                    print(json.dumps(turns[-1]), file=sys.stderr, flush=True)
                    time.sleep(0.4)
        stop.set()
        listener.close()
    keys = ("rig_end_to_audio_ms", "end_to_audio_ms", "end_to_transcript_ms", "endpoint_ms", "asr_ms",
            "transcript_to_reply_ms", "reply_to_audio_ms", "tts_first_ms", "tts_ahead_ms",
            "vad_end_minus_true_end_ms")
    res["stages"] = {k: _stats([t.get(k) for t in turns]) for k in keys}
    res["speculative_share"] = round(sum(bool(t.get("speculative")) for t in turns) / max(1, len(turns)), 2)
    res["ahead_share"] = round(sum(bool(t.get("turn_ahead")) for t in turns) / max(1, len(turns)), 2)
    res["speech_ahead_share"] = round(sum("tts_ahead_ms" in t for t in turns) / max(1, len(turns)), 2)
    res["wer"] = round(wer([t["text"] for t in turns], [t["heard"] for t in turns]), 4)
    res["turns"] = len(turns)
    res["loadavg_end"] = list(os.getloadavg())
    text = json.dumps(res, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(json.dumps({**res, "per_turn": turns}, indent=1) + "\n")


if __name__ == "__main__":
    main()
