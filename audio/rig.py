"""A loopback microphone and speaker for machines without a sound card, through the real audio stack.

A private PulseAudio server with two null sinks, reached by parley through PortAudio → ALSA → the ALSA pulse
plugin, exactly as a desktop microphone would be:

- ``parley_mic``: the rig speaks into this sink. Its monitor is the server's default source, so PortAudio's
  ALSA ``default`` capture device hears it. The rig writes background noise all the time (a room is never
  silent) and mixes speech in on :meth:`Rig.say`, paced by the wall clock, so speech arrives in real time.
- ``parley_speaker``: the default sink; whatever parley plays lands here. The rig records its monitor
  (:meth:`Rig.heard`), which also keeps the sink's clock running at low latency (an idle null sink sleeps in
  2 s blocks and would delay the first reply by up to 2 s).

Needs the Debian packages ``pulseaudio``, ``pulseaudio-utils`` (pacat) and ``libasound2-plugins`` (the ALSA
pulse plugin); ``./setup.sh test`` installs them. :func:`missing` says what is absent. By hand:
``python -m parley.audio.rig`` (see :mod:`parley.audio.rig_cli`).

A client process needs :attr:`Rig.env` in its environment before PortAudio starts; a process that already
imported sounddevice calls :func:`parley.audio.devices.rescan` after changing its environment.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from parley.errors import ParleyError

MIC_RATE = 16000
SPEAKER_RATE = 22050
BLOCK_S = 0.02
LEAD_S = 0.04  # how far the feeder writes ahead of the wall clock
ALSA_TOP = Path("/usr/share/alsa/alsa.conf")
_PLUGIN_DIRS = ("/usr/lib/x86_64-linux-gnu/alsa-lib", "/usr/lib/aarch64-linux-gnu/alsa-lib", "/usr/lib/alsa-lib",
                "/usr/lib64/alsa-lib")


class RigError(ParleyError):
    """The rig could not start (packages missing, the server did not come up)."""


def missing() -> list[str]:
    """What the rig needs and this machine lacks (Debian package names); empty when it can run."""
    out = []
    if not shutil.which("pulseaudio"):
        out.append("pulseaudio")
    if not shutil.which("pacat"):
        out.append("pulseaudio-utils")
    if not any(Path(d, "libasound_module_pcm_pulse.so").is_file() for d in _PLUGIN_DIRS):
        out.append("libasound2-plugins")
    if not ALSA_TOP.is_file():
        out.append("libasound2-data")
    return out


def _pulse_script(socket: Path) -> str:
    return "\n".join((
        f"load-module module-null-sink sink_name=parley_mic rate={MIC_RATE} channels=1 "
        "sink_properties=device.description=parley-rig-microphone",
        f"load-module module-null-sink sink_name=parley_speaker rate={SPEAKER_RATE} channels=1 "
        "sink_properties=device.description=parley-rig-speaker",
        f"load-module module-native-protocol-unix socket={socket} auth-anonymous=1",
        "set-default-source parley_mic.monitor",
        "set-default-sink parley_speaker", ""))


_ASOUND = "pcm.!default { type pulse }\nctl.!default { type pulse }\n"


def _short_dir() -> Path:
    """A private folder whose socket path fits the 108-byte limit of unix sockets."""
    base = tempfile.gettempdir()
    if len(base) > 60:
        base = "/tmp"
    return Path(tempfile.mkdtemp(prefix="prig-", dir=base))


class Rig:
    """Start with ``with Rig() as rig:``; ``rig.env`` for clients, ``rig.say(wav)``, ``rig.heard()``.

    ``noise_dbfs`` is the level (RMS, dB full scale) of the background noise written between and under the
    speech (None: digital silence). ``seed`` makes the noise reproducible.
    """

    def __init__(self, *, noise_dbfs: float | None = -50.0, seed: int = 0) -> None:
        self.noise_dbfs = noise_dbfs
        self.dir = _short_dir()
        self.socket = self.dir / "native"
        self.env = {"PULSE_SERVER": f"unix:{self.socket}", "ALSA_CONFIG_PATH": f"{ALSA_TOP}:{self.dir / 'asound.conf'}"}
        self._rng = np.random.default_rng(seed)
        self._procs: list[subprocess.Popen[bytes]] = []
        self._speech: queue.Queue[tuple[np.ndarray, threading.Event, list[float]]] = queue.Queue()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._heard: list[np.ndarray] = []
        self._heard_t0: float | None = None
        self._heard_lock = threading.Lock()

    # -- life cycle ------------------------------------------------------------------------------------
    def start(self, timeout: float = 15.0) -> Rig:
        lacking = missing()
        if lacking:
            raise RigError(f"the audio rig needs the Debian packages {' '.join(lacking)} (./setup.sh test as root)")
        for sub in ("home", "run", "state"):
            (self.dir / sub).mkdir(mode=0o700, exist_ok=True)
        (self.dir / "rig.pa").write_text(_pulse_script(self.socket), encoding="utf-8")
        (self.dir / "asound.conf").write_text(_ASOUND, encoding="utf-8")
        server_env = {**os.environ, "HOME": str(self.dir / "home"), "XDG_RUNTIME_DIR": str(self.dir / "run"),
                      "XDG_CONFIG_HOME": str(self.dir / "home"), "PULSE_RUNTIME_PATH": str(self.dir / "run"),
                      "PULSE_STATE_PATH": str(self.dir / "state")}
        server_env.pop("PULSE_SERVER", None)
        log = open(self.dir / "pulseaudio.log", "wb")  # noqa: SIM115 - kept open for the server's life
        self._procs.append(subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--system=no",
             "--realtime=no", "--high-priority=no", "-F", str(self.dir / "rig.pa"), "--log-target=stderr"],
            env=server_env, stdout=log, stderr=log, stdin=subprocess.DEVNULL))
        log.close()
        deadline = time.monotonic() + timeout
        while not self.socket.exists():
            if self._procs[0].poll() is not None or time.monotonic() > deadline:
                self.stop()
                tail = (self.dir / "pulseaudio.log").read_text(errors="replace").strip().splitlines()[-1:]
                raise RigError(f"the PulseAudio rig did not start ({' '.join(tail) or 'no output'})")
            time.sleep(0.05)
        self._start_thread(self._feed, "rig-mic")
        self._start_thread(self._record, "rig-speaker")
        while self._heard_t0 is None:  # an idle null sink wakes up within its 2 s block
            if time.monotonic() > deadline + 5.0:
                self.stop()
                raise RigError("the rig's speaker sink delivered no audio")
            time.sleep(0.02)
        return self

    def __enter__(self) -> Rig:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stop the feeder, the recorder and the server; remove the rig's folder."""
        self._stop.set()
        for p in reversed(self._procs):
            if p.poll() is None:
                p.terminate()
        for p in reversed(self._procs):
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)
        for t in self._threads:
            t.join(5)
        self._procs.clear()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _start_thread(self, target: object, name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)  # type: ignore[arg-type]
        t.start()
        self._threads.append(t)

    def _pacat(self, *args: str) -> subprocess.Popen[bytes]:
        """A pacat client, returned once its stream is connected (its verbose output is drained)."""
        env = {**os.environ, **self.env, "HOME": str(self.dir / "home")}
        p = subprocess.Popen(["pacat", "-v", "--raw", "--format=s16le", "--channels=1", "--latency-msec=20", *args],
                             env=env, stdin=subprocess.PIPE if "--playback" in args else subprocess.DEVNULL,
                             stdout=subprocess.PIPE if "--record" in args else subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        self._procs.append(p)
        ready = threading.Event()

        def drain() -> None:
            assert p.stderr is not None
            seen = b""
            while chunk := p.stderr.read1(4096):  # type: ignore[attr-defined]
                if not ready.is_set():
                    seen += chunk
                    if b"Connected to device" in seen:
                        ready.set()
            ready.set()

        self._start_thread(drain, "rig-pacat-log")
        ready.wait(10)
        return p

    # -- the microphone --------------------------------------------------------------------------------
    def say(self, audio: str | os.PathLike[str] | np.ndarray, *, wait: bool = True,
            timeout: float = 120.0) -> float:
        """Speak ``audio`` (a WAV path or 16 kHz float samples) into the microphone, over the background
        noise. With ``wait`` returns once the last sample has been handed to the server: the monotonic time at
        which it is due in the sink (the end of speech); without, returns at once (0.0)."""
        samples = _load_16k(audio)
        done, when = threading.Event(), [0.0]
        self._speech.put((samples, done, when))
        if not wait:
            return 0.0
        if not done.wait(timeout + samples.size / MIC_RATE):
            raise RigError("the rig's microphone stopped feeding")
        return when[0]

    def _noise(self, n: int) -> np.ndarray:
        if self.noise_dbfs is None:
            return np.zeros(n, dtype=np.float32)
        rms = 10.0 ** (self.noise_dbfs / 20.0)
        return (self._rng.standard_normal(n) * rms).astype(np.float32)

    def _feed(self) -> None:
        proc = self._pacat("--playback", "--device=parley_mic", f"--rate={MIC_RATE}",
                           "--client-name=parley-rig-mic")
        assert proc.stdin is not None
        with contextlib.suppress(OSError, AttributeError):  # keep little audio in flight (Linux)
            fcntl.fcntl(proc.stdin.fileno(), fcntl.F_SETPIPE_SZ, 4096)
        block = int(MIC_RATE * BLOCK_S)
        current: tuple[np.ndarray, threading.Event, list[float]] | None = None
        pos = 0
        written = 0
        t0 = time.monotonic()
        try:
            while not self._stop.is_set():
                due = (time.monotonic() - t0 + LEAD_S) * MIC_RATE
                if written > due:
                    time.sleep(min(BLOCK_S, (written - due) / MIC_RATE))
                    continue
                if written + block < due - 4 * block:  # we fell behind (the server stalled): re-anchor the clock
                    t0 = time.monotonic() + LEAD_S - written / MIC_RATE
                chunk = self._noise(block)
                if current is None:
                    with contextlib.suppress(queue.Empty):
                        current, pos = self._speech.get_nowait(), 0
                if current is not None:
                    part = current[0][pos:pos + block]
                    chunk[:part.size] += part
                    pos += part.size
                    if pos >= current[0].size:
                        current[2][0] = t0 + (written + part.size) / MIC_RATE
                        current[1].set()
                        current = None
                pcm = (np.clip(chunk, -1.0, 1.0) * 32767).astype("<i2").tobytes()
                proc.stdin.write(pcm)
                proc.stdin.flush()
                written += block
        except (BrokenPipeError, OSError, ValueError):
            return

    # -- the speaker -----------------------------------------------------------------------------------
    def _record(self) -> None:
        proc = self._pacat("--record", "--device=parley_speaker.monitor", f"--rate={SPEAKER_RATE}",
                           "--client-name=parley-rig-speaker")
        assert proc.stdout is not None
        nbytes = int(SPEAKER_RATE * BLOCK_S) * 2
        while not self._stop.is_set():
            data = proc.stdout.read(nbytes)
            if not data:
                return
            now = time.monotonic()
            samples = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0
            with self._heard_lock:
                if self._heard_t0 is None:
                    self._heard_t0 = now - samples.size / SPEAKER_RATE
                self._heard.append(samples)

    def heard(self, since: float | None = None) -> tuple[np.ndarray, float]:
        """What the speaker played (22.05 kHz float) from monotonic time ``since`` (default: the start), and the
        monotonic time of its first sample."""
        with self._heard_lock:
            audio = np.concatenate(self._heard) if self._heard else np.zeros(0, dtype=np.float32)
            t0 = self._heard_t0 if self._heard_t0 is not None else time.monotonic()
        skip = 0 if since is None else min(audio.size, max(0, int((since - t0) * SPEAKER_RATE)))
        return audio[skip:], t0 + skip / SPEAKER_RATE

    def first_sound_after(self, since: float, threshold: float = 0.01) -> float | None:
        """Monotonic time of the first sample above ``threshold`` the speaker played after ``since``."""
        audio, t0 = self.heard(since)
        loud = np.flatnonzero(np.abs(audio) > threshold)
        return None if loud.size == 0 else t0 + float(loud[0]) / SPEAKER_RATE


def pink_noise(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` samples of pink (1/f) noise with unit RMS — closer to a room than white noise."""
    spectrum = np.fft.rfft(rng.standard_normal(n))
    freqs = np.arange(spectrum.size, dtype=np.float64)
    freqs[0] = 1.0
    noise = np.fft.irfft(spectrum / np.sqrt(freqs), n)
    return (noise / (np.sqrt(np.mean(noise ** 2)) or 1.0)).astype(np.float32)


def make_utterance(text: str, path: str | os.PathLike[str], *, snr_db: float | None = 15.0, lead_s: float = 0.4,
                   tail_s: float = 0.4, seed: int = 0, tts: str = "piper") -> str:
    """Synthesise ``text`` (the bundled piper voice, deterministic) as a 16 kHz WAV with ``lead_s``/``tail_s`` of
    room before and after, and pink background noise at ``snr_db`` under the whole file: a spoken test turn."""
    from parley.audio.asr import resample
    from parley.audio.capture import write_wav
    from parley.audio.tts import get_tts

    voice = get_tts(tts, deterministic=True)
    speech, sr = voice.synthesize(text)
    speech = resample(speech, sr, MIC_RATE) * 0.5
    audio = np.concatenate([np.zeros(int(lead_s * MIC_RATE)), speech, np.zeros(int(tail_s * MIC_RATE))])
    if snr_db is not None:
        power = float(np.mean(speech.astype(np.float64) ** 2))
        audio = audio + pink_noise(audio.size, np.random.default_rng(seed)) * np.sqrt(power / 10 ** (snr_db / 10))
    return write_wav(Path(path), audio.astype(np.float32), MIC_RATE)


def _load_16k(audio: str | os.PathLike[str] | np.ndarray) -> np.ndarray:
    from parley.audio.asr import load_audio

    return load_audio(audio, MIC_RATE)
