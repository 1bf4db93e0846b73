"""Audio device detection: is PortAudio installed, is there a microphone / a speaker.

``sounddevice`` needs the PortAudio shared library (Debian ``libportaudio2``): without it, importing raises
``OSError``. On a machine with no sound card, ``query_devices(kind="input")`` raises ``PortAudioError``. Both
are turned into an :class:`AudioStatus` with one clear sentence as ``reason``; nothing here raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from parley.errors import ParleyError

NO_PORTAUDIO = ("PortAudio is not installed, so parley cannot use a microphone or speakers "
                "(install libportaudio2, e.g. `sudo apt install libportaudio2`)")


class AudioUnavailable(ParleyError, RuntimeError):
    """No usable audio device (or no PortAudio); the message is one sentence meant for the user."""


@dataclass(frozen=True)
class AudioStatus:
    """Whether audio input (or output) can be used, and why not."""

    available: bool
    reason: str | None
    input_devices: tuple[str, ...]
    output_devices: tuple[str, ...]


def import_sounddevice() -> Any:
    """Import ``sounddevice`` or raise :class:`AudioUnavailable` naming the missing PortAudio library."""
    try:
        import sounddevice
    except (OSError, ImportError) as e:
        detail = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if isinstance(e, ImportError) and "sounddevice" in detail and "portaudio" not in detail.lower():
            raise AudioUnavailable("the sounddevice package is not installed "
                                   "(pip install sounddevice)") from None
        raise AudioUnavailable(NO_PORTAUDIO) from None
    return sounddevice


def _device_lists(sd: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    try:
        devices = list(sd.query_devices())
    except Exception:
        return (), ()
    ins = tuple(str(d.get("name", "?")) for d in devices if int(d.get("max_input_channels", 0) or 0) > 0)
    outs = tuple(str(d.get("name", "?")) for d in devices if int(d.get("max_output_channels", 0) or 0) > 0)
    return ins, outs


def _check(kind: str) -> AudioStatus:
    try:
        sd = import_sounddevice()
    except AudioUnavailable as e:
        return AudioStatus(False, str(e), (), ())
    ins, outs = _device_lists(sd)
    try:
        default = sd.query_devices(kind=kind)
        if not default:
            raise ValueError("no default device")
    except Exception:
        if kind == "input":
            reason = ("No microphone (audio input device) was found; voice input is off, typed input keeps "
                      "working.")
        else:
            reason = "No audio output device (speakers) was found; replies cannot be played, only saved."
        return AudioStatus(False, reason, ins, outs)
    name = str(default.get("name", "default")) if hasattr(default, "get") else "default"
    # the default device must be listed even when the full device list could not be read
    if kind == "input" and name not in ins:
        ins = (name, *ins)
    if kind == "output" and name not in outs:
        outs = (name, *outs)
    return AudioStatus(True, None, ins, outs)


def check_input() -> AudioStatus:
    """Can parley record from a microphone? Never raises; ``reason`` says why not in one sentence."""
    return _check("input")


def check_output() -> AudioStatus:
    """Can parley play audio? Never raises; ``reason`` says why not in one sentence."""
    return _check("output")


def portaudio_version() -> str | None:
    """PortAudio's version text, or None when it is missing (for ``parley doctor``)."""
    try:
        sd = import_sounddevice()
        return str(sd.get_portaudio_version()[1])
    except Exception:
        return None


def rescan() -> bool:
    """Let PortAudio list the devices again; False when there is no PortAudio. Never raises.

    PortAudio scans devices once, when it starts: a microphone plugged in later, or an audio server started
    after parley (the test rig, :mod:`parley.audio.rig`), is only seen after a rescan. sounddevice has no
    public call for it; its maintainers advise ``_terminate()`` + ``_initialize()`` (python-sounddevice issues
    #125 and #516), and tests/unit/test_audio_devices.py fails loudly if those names move. Never call it while
    a stream is open: terminating PortAudio closes every stream.
    """
    try:
        sd = import_sounddevice()
        sd._terminate()
        sd._initialize()
    except Exception:  # noqa: BLE001 - no PortAudio, or it failed to restart: report, never raise
        return False
    return True
